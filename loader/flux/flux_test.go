package flux

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"

	"github.com/contourc/contourc/internal/testfs"
	"github.com/contourc/contourc/loader"
)

func writeRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	files[".git/config"] = "[remote \"origin\"]\n\turl = https://github.com/example/fleet.git\n"
	return testfs.Tree(t, files)
}

// ks is a Flux Kustomization of the flux-system namespace.
func ks(apiVersion, name, spec string) string {
	return "apiVersion: " + apiVersion + "\nkind: Kustomization\nmetadata:\n  name: " + name + "\n  namespace: flux-system\nspec:\n" + spec + "---\n"
}

const svc = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: web\nspec:\n  ports:\n  - port: 80\n"

func load(t *testing.T, root string, paths []string, opts Options, sub *loader.Substitution) *loader.Result {
	t.Helper()
	res, err := loader.Load(paths, loader.Options{Substitute: sub, Follow: &loader.Follow{Followers: []loader.Follower{New(opts)}}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func reports(res *loader.Result) []string {
	var out []string
	for _, e := range res.Entries {
		out = append(out, e.String())
	}
	return out
}

// Each Kustomization that is not followed says why, and none is an error.
func TestNotFollowedReasons(t *testing.T) {
	src := "  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
	root := writeRepo(t, map[string]string{
		"apps/web/svc.yaml": svc,
		"clusters/prod/ks.yaml": "" +
			ks("kustomize.toolkit.fluxcd.io/v1beta1", "old", "  path: ./apps/web\n"+src) +
			ks("kustomize.toolkit.fluxcd.io/v1", "suspended", "  suspend: true\n  path: ./apps/web\n"+src) +
			ks("kustomize.toolkit.fluxcd.io/v1", "oci", "  path: ./\n  sourceRef:\n    kind: OCIRepository\n    name: podinfo\n") +
			ks("kustomize.toolkit.fluxcd.io/v1", "other", "  path: ./\n  sourceRef:\n    kind: GitRepository\n    name: other\n") +
			ks("kustomize.toolkit.fluxcd.io/v1", "unknown", "  path: ./\n  sourceRef:\n    kind: GitRepository\n    name: unknown\n") +
			ks("kustomize.toolkit.fluxcd.io/v1", "missing-path", "  path: ./nowhere\n"+src) +
			ks("kustomize.toolkit.fluxcd.io/v1", "outside", "  path: ../elsewhere\n"+src) +
			ks("kustomize.toolkit.fluxcd.io/v1", "absent-vars", "  path: ./apps/web\n"+src+"  postBuild:\n    substituteFrom:\n    - kind: ConfigMap\n      name: absent\n") +
			ks("kustomize.toolkit.fluxcd.io/v1", "sops-vars", "  path: ./apps/web\n"+src+"  postBuild:\n    substituteFrom:\n    - kind: Secret\n      name: sops\n") +
			ks("kustomize.toolkit.fluxcd.io/v1", "optional-vars", "  path: ./apps/web\n"+src+"  postBuild:\n    substituteFrom:\n    - kind: Secret\n      name: absent\n      optional: true\n") +
			"apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: other\n  namespace: flux-system\nspec:\n  url: https://github.com/example/other\n---\n" +
			"apiVersion: v1\nkind: Secret\nmetadata:\n  name: sops\n  namespace: flux-system\nstringData:\n  DOMAIN: ENC[AES256_GCM,data:abc=,type:str]\nsops:\n  mac: ENC[AES256_GCM,data:x=,type:str]\n  version: 3.8.1\n",
	})
	res := load(t, root, []string{filepath.Join(root, "clusters")}, Options{}, nil)
	want := []string{
		"not followed: Kustomization flux-system/old: apiVersion kustomize.toolkit.fluxcd.io/v1beta1 is not read (kustomize.toolkit.fluxcd.io/v1 and v1beta2 are)",
		"not followed: Kustomization flux-system/suspended: spec.suspend is true: Flux applies nothing of it",
		"not followed: Kustomization flux-system/oci: source OCIRepository flux-system/podinfo is not this repository (name it, and the directory its artifact is pushed from, with --flux-source OCIRepository/flux-system/podinfo=DIR)",
		"not followed: Kustomization flux-system/other: source GitRepository flux-system/other is not this repository",
		"not followed: Kustomization flux-system/unknown: source GitRepository flux-system/unknown is not this repository (not in the input; name it with --flux-source)",
		"not followed: Kustomization flux-system/missing-path: path ./nowhere is not a directory of this repository",
		"not followed: Kustomization flux-system/outside: path ../elsewhere is outside the repository",
		`not followed: Kustomization flux-system/absent-vars: spec.postBuild.substituteFrom: substitute from 'ConfigMap/absent' error: configmaps "absent" not found`,
		"not followed: Kustomization flux-system/sops-vars: spec.postBuild.substituteFrom: Secret flux-system/sops is encrypted with SOPS, which contourc cannot decrypt: give its variables with --substitute (DOMAIN)",
		"followed: Kustomization flux-system/optional-vars -> apps/web/ (1 object)",
	}
	if got := reports(res); !slices.Equal(got, want) {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A Kustomization whose substituteFrom names a SOPS-encrypted Secret is
// followed when the --substitute flags give every key of the Secret: the
// flags stand for its values.
func TestSOPSVariablesFromFlags(t *testing.T) {
	src := "  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
	root := writeRepo(t, map[string]string{
		"apps/web/svc.yaml": strings.Replace(svc, "name: web\n  namespace", "name: web-${DOMAIN}\n  namespace", 1),
		"clusters/prod/ks.yaml": ks("kustomize.toolkit.fluxcd.io/v1", "sops-vars", "  path: ./apps/web\n"+src+"  postBuild:\n    substituteFrom:\n    - kind: Secret\n      name: sops\n") +
			"apiVersion: v1\nkind: Secret\nmetadata:\n  name: sops\n  namespace: flux-system\nstringData:\n  DOMAIN: ENC[AES256_GCM,data:abc=,type:str]\nsops:\n  mac: ENC[AES256_GCM,data:x=,type:str]\n  version: 3.8.1\n",
	})
	sub, err := loader.NewSubstitution(map[string]string{"DOMAIN": "example"}, false)
	if err != nil {
		t.Fatal(err)
	}
	res := load(t, root, []string{filepath.Join(root, "clusters")}, Options{}, sub)
	if got := reports(res); !slices.Equal(got, []string{"followed: Kustomization flux-system/sops-vars -> apps/web/ (1 object)"}) {
		t.Fatalf("entries: %q", got)
	}
	if !slices.ContainsFunc(res.Objects, func(o loader.Object) bool { return o.Kind == "Service" && o.Obj.GetName() == "web-example" }) {
		t.Errorf("no Service web-example among the objects")
	}
}

// A GitRepository is this repository when its url is the origin's in
// another form, or when --flux-source names it.
func TestThisRepository(t *testing.T) {
	for _, tc := range []struct {
		url     string
		sources []string
		follows bool
	}{
		{"ssh://git@github.com/example/fleet", nil, true},
		{"git@github.com:example/fleet.git", nil, true},
		{"https://GitHub.com/example/fleet/", nil, true},
		{"https://github.com/example/fleet-apps", nil, false},
		{"https://github.com/example/fleet-apps", []string{"apps/fleet"}, true},
	} {
		root := writeRepo(t, map[string]string{
			"apps/web/svc.yaml": svc,
			"clusters/ks.yaml": ks("kustomize.toolkit.fluxcd.io/v1", "web", "  path: ./apps/web\n  sourceRef:\n    kind: GitRepository\n    name: fleet\n    namespace: apps\n") +
				"apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: fleet\n  namespace: apps\nspec:\n  url: " + tc.url + "\n",
		})
		res := load(t, root, []string{filepath.Join(root, "clusters")}, Options{Sources: tc.sources}, nil)
		if got := len(res.Entries) == 1 && res.Entries[0].Followed; got != tc.follows {
			t.Errorf("url %s, sources %v: followed %v, want %v (%v)", tc.url, tc.sources, got, tc.follows, reports(res))
		}
	}
}

const proxy = `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata:
  name: web
spec:
  virtualhost:
    fqdn: web.${DOMAIN}
  routes:
  - services:
    - name: web
      port: 80
`

// Variables come from substituteFrom in order, then substitute over
// them, then the --substitute flags over everything; the generator makes
// a kustomization for a path without one, with targetNamespace and
// namePrefix.
func TestBuildAndSubstitution(t *testing.T) {
	spec := func(extra string) string {
		return "  path: ./apps/web\n  targetNamespace: shop\n  namePrefix: p-\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  postBuild:\n" + extra
	}
	cm := func(name, domain string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: flux-system\ndata:\n  DOMAIN: " + domain + "\n---\n"
	}
	for _, tc := range []struct {
		name, extra string
		flags       map[string]string
		want        string
	}{
		{"later substituteFrom wins", "    substituteFrom:\n    - kind: ConfigMap\n      name: a\n    - kind: ConfigMap\n      name: b\n", nil, "web.b.test"},
		{"substitute wins over substituteFrom", "    substitute:\n      DOMAIN: inline.test\n    substituteFrom:\n    - kind: ConfigMap\n      name: a\n", nil, "web.inline.test"},
		{"--substitute wins over both", "    substitute:\n      DOMAIN: inline.test\n", map[string]string{"DOMAIN": "flag.test"}, "web.flag.test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := writeRepo(t, map[string]string{
				"apps/web/proxy.yaml": proxy,
				"apps/web/svc.yaml":   strings.Replace(svc, "  namespace: web\n", "", 1),
				"clusters/ks.yaml":    ks("kustomize.toolkit.fluxcd.io/v1", "web", spec(tc.extra)) + cm("a", "a.test") + cm("b", "b.test"),
			})
			var sub *loader.Substitution
			if tc.flags != nil {
				var err error
				if sub, err = loader.NewSubstitution(tc.flags, false); err != nil {
					t.Fatal(err)
				}
			}
			res := load(t, root, []string{filepath.Join(root, "clusters")}, Options{}, sub)
			var got []string
			for _, o := range res.Objects {
				if o.Kind == "HTTPProxy" {
					got = append(got, o.Obj.GetNamespace()+"/"+o.Obj.GetName())
				}
			}
			if !slices.Equal(got, []string{"shop/p-web"}) {
				t.Fatalf("HTTPProxies %v, want shop/p-web", got)
			}
			for _, o := range res.Objects {
				if o.Kind == "HTTPProxy" {
					if fqdn := fqdnOf(o); fqdn != tc.want {
						t.Errorf("fqdn %q, want %q", fqdn, tc.want)
					}
					if s := o.Source.String(); !strings.HasSuffix(s, "Kustomization flux-system/web → "+filepath.Join(root, "apps/web/proxy.yaml")+":1") {
						t.Errorf("source %q", s)
					}
				}
			}
		})
	}
}

// The outcome does not depend on the order of files and documents.
func TestFollowDeterministic(t *testing.T) {
	src := "  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
	a := ks("kustomize.toolkit.fluxcd.io/v1", "a", "  path: ./apps/a\n"+src)
	b := ks("kustomize.toolkit.fluxcd.io/v1", "b", "  path: ./apps/b\n"+src)
	outcome := func(files map[string]string) string {
		files["apps/a/svc.yaml"] = strings.Replace(svc, "name: web", "name: a", 1)
		files["apps/b/svc.yaml"] = strings.Replace(svc, "name: web", "name: b", 1)
		root := writeRepo(t, files)
		res := load(t, root, []string{filepath.Join(root, "clusters")}, Options{}, nil)
		var out []string
		for _, o := range res.Objects {
			out = append(out, o.Kind+" "+o.Obj.GetNamespace()+"/"+o.Obj.GetName()+" "+strings.TrimPrefix(o.Source.File, root))
		}
		r := reports(res)
		slices.Sort(r)
		return strings.Join(append(out, r...), "\n")
	}
	one := outcome(map[string]string{"clusters/1.yaml": a + b})
	two := outcome(map[string]string{"clusters/1.yaml": b + a})
	three := outcome(map[string]string{"clusters/z.yaml": a, "clusters/y.yaml": b})
	if one != two || one != three {
		t.Errorf("outcomes differ:\n%s\n--\n%s\n--\n%s", one, two, three)
	}
}

func fqdnOf(o loader.Object) string {
	if p, ok := o.Obj.(*contourv1.HTTPProxy); ok && p.Spec.VirtualHost != nil {
		return p.Spec.VirtualHost.Fqdn
	}
	return ""
}

// spec.components that the repository lacks are left out when
// spec.ignoreMissingComponents says so, and those it has are applied.
func TestIgnoreMissingComponents(t *testing.T) {
	src := "  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
	root := writeRepo(t, map[string]string{
		"apps/web/svc.yaml":                   svc,
		"components/extra/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- cm.yaml\n",
		"components/extra/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: web\n",
		"clusters/prod/ks.yaml": ks("kustomize.toolkit.fluxcd.io/v1", "web", "  path: ./apps/web\n"+src+
			"  ignoreMissingComponents: true\n  components:\n  - ../../components/extra\n  - ../../components/absent\n"),
	})
	res := load(t, root, []string{filepath.Join(root, "clusters")}, Options{}, nil)
	if got := reports(res); !slices.Equal(got, []string{"followed: Kustomization flux-system/web -> apps/web/ (2 objects)"}) {
		t.Fatalf("entries: %q", got)
	}
	if !slices.ContainsFunc(res.Objects, func(o loader.Object) bool { return o.Kind == "ConfigMap" && o.Obj.GetName() == "extra" }) {
		t.Error("the present component's ConfigMap is missing")
	}
}
