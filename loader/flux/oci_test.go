package flux

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contourc/contourc/loader"
)

func TestParseSource(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Source
		err  string
	}{
		{in: "flux-system/fleet", want: Source{GitRepository, "flux-system", "fleet", "."}},
		{in: "GitRepository/flux-system/fleet", want: Source{GitRepository, "flux-system", "fleet", "."}},
		{in: "OCIRepository/flux-system/cluster-manifests=kubernetes", want: Source{OCIRepository, "flux-system", "cluster-manifests", "kubernetes"}},
		{in: "OCIRepository/flux-system/m=./kubernetes/", want: Source{OCIRepository, "flux-system", "m", "kubernetes"}},
		{in: "OCIRepository/flux-system/m=.", want: Source{OCIRepository, "flux-system", "m", "."}},
		{in: "OCIRepository/flux-system/m", want: Source{OCIRepository, "flux-system", "m", "."}},
		{in: "fleet", err: "want NAMESPACE/NAME or KIND/NAMESPACE/NAME[=DIR]"},
		{in: "/fleet", err: "want NAMESPACE/NAME or KIND/NAMESPACE/NAME[=DIR]"},
		{in: "a/b/c/d", err: "want NAMESPACE/NAME or KIND/NAMESPACE/NAME[=DIR]"},
		{in: "OCIRepository//m=k", err: "want NAMESPACE/NAME or KIND/NAMESPACE/NAME[=DIR]"},
		{in: "Bucket/flux-system/b=k", err: `kind "Bucket": want GitRepository or OCIRepository`},
		{in: "ocirepository/flux-system/m=k", err: `kind "ocirepository": want GitRepository or OCIRepository`},
		{in: "flux-system/fleet=k", err: "a GitRepository is the repository's root: want GitRepository/NAMESPACE/NAME without =DIR"},
		{in: "GitRepository/flux-system/fleet=k", err: "a GitRepository is the repository's root"},
		{in: "OCIRepository/flux-system/m=", err: "want a DIR after ="},
		{in: "OCIRepository/flux-system/m=../k", err: `DIR "../k": want a directory from the repository's root`},
		{in: "OCIRepository/flux-system/m=/srv/k", err: `DIR "/srv/k": want a directory from the repository's root`},
	} {
		got, err := ParseSource(tc.in)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.err)
		case tc.err == "" && got != tc.want:
			t.Errorf("%s: %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// ociRepo is an OCIRepository of the flux-system namespace.
func ociRepo(name, spec string) string {
	return "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: " + name + "\n  namespace: flux-system\nspec:\n  interval: 10m\n  url: oci://ghcr.io/example/" + name + "\n  ref: {tag: latest}\n" + spec + "---\n"
}

// ociKs is a Kustomization of the OCIRepository cluster-manifests.
func ociKs(name, path, spec string) string {
	return ks("kustomize.toolkit.fluxcd.io/v1", name, "  path: "+path+"\n  sourceRef:\n    kind: OCIRepository\n    name: cluster-manifests\n"+spec)
}

const (
	manifests = "OCIRepository/flux-system/cluster-manifests=kubernetes"
	// what not naming it says of it
	ociHint = "source OCIRepository flux-system/cluster-manifests is not this repository (name it, and the directory its artifact is pushed from, with --flux-source OCIRepository/flux-system/cluster-manifests=DIR)"
)

// A Flux Operator layout: CI pushes kubernetes/ as the OCI artifact
// cluster-manifests, and the cluster's Kustomizations build paths of it.
// Named with the directory, they are built from it as the artifact has
// it (the generator, targetNamespace, postBuild), their objects pointing
// at the checkout's files; not named, they are not followed and say how
// to name it.
func TestOCIRepositoryFollowed(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"clusters/prod/sources.yaml": ociRepo("cluster-manifests", ""),
		"clusters/prod/apps.yaml": ociKs("apps", "./apps/web", "  targetNamespace: web\n  postBuild:\n    substitute:\n      DOMAIN: example.com\n") +
			ociKs("infra", "./infra", ""),
		// No kustomization.yaml: Flux's generator lists the directory,
		// without the files the artifact lacks.
		"kubernetes/apps/web/svc.yaml":        strings.Replace(svc, "  namespace: web\n", "", 1),
		"kubernetes/apps/web/proxy.yaml":      proxy,
		"kubernetes/apps/web/.sops.yaml":      "creation_rules: []\n",
		"kubernetes/apps/web/logo.png":        "",
		"kubernetes/infra/kustomization.yaml": "resources: [cm.yaml]\n",
		"kubernetes/infra/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: infra\n  namespace: infra\n",
		// Outside the pushed directory: not in the artifact.
		"apps/web/svc.yaml": svc,
	})
	res := load(t, root, []string{filepath.Join(root, "clusters/prod")}, Options{Sources: []string{manifests}}, nil)
	want := []string{
		"followed: Kustomization flux-system/apps -> apps/web/ of OCIRepository flux-system/cluster-manifests (2 objects)",
		"followed: Kustomization flux-system/infra -> infra/ of OCIRepository flux-system/cluster-manifests (1 object)",
	}
	if got := reports(res); !slices.Equal(got, want) {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var got []string
	for _, o := range res.Objects {
		switch o.Kind {
		case "HTTPProxy", "Service", "ConfigMap":
			got = append(got, o.Kind+" "+o.Obj.GetNamespace()+"/"+o.Obj.GetName()+" "+strings.ReplaceAll(o.Source.String(), root+"/", ""))
		}
		if o.Kind == "HTTPProxy" && fqdnOf(o) != "web.example.com" {
			t.Errorf("fqdn %q, want web.example.com", fqdnOf(o))
		}
	}
	wantObjs := []string{
		"ConfigMap infra/infra clusters/prod/apps.yaml:16 Kustomization flux-system/infra → kubernetes/infra/cm.yaml:1",
		"HTTPProxy web/web clusters/prod/apps.yaml:1 Kustomization flux-system/apps → kubernetes/apps/web/proxy.yaml:1",
		"Service web/web clusters/prod/apps.yaml:1 Kustomization flux-system/apps → kubernetes/apps/web/svc.yaml:1",
	}
	slices.Sort(got)
	if !slices.Equal(got, wantObjs) {
		t.Errorf("objects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantObjs, "\n"))
	}

	res = load(t, root, []string{filepath.Join(root, "clusters/prod")}, Options{}, nil)
	want = []string{
		"not followed: Kustomization flux-system/apps: " + ociHint,
		"not followed: Kustomization flux-system/infra: " + ociHint,
	}
	if got := reports(res); !slices.Equal(got, want) {
		t.Errorf("entries without --flux-source:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Why a Kustomization of a named OCIRepository is not followed: a path
// outside the artifact or not in it (what the CLI or source-controller
// left out, or the checkout's beside the pushed directory), a directory
// that is not the repository's. A directory whose files the CLI left out
// is pushed empty. Its HelmReleases' charts are not
// rendered. An ArtifactGenerator may copy from it.
func TestOCIRepositoryNotFollowedReasons(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"clusters/sources.yaml": ociRepo("cluster-manifests", "  ignore: |\n    /drafts/\n") + ociRepo("elsewhere", ""),
		"clusters/ks.yaml": ociKs("outside", "../apps", "") +
			ociKs("missing", "./nowhere", "") +
			ociKs("drafts", "./drafts", "") +
			ociKs("images", "./images", "") +
			ks("kustomize.toolkit.fluxcd.io/v1", "elsewhere", "  path: ./\n  sourceRef:\n    kind: OCIRepository\n    name: elsewhere\n") +
			"apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: chart\n  namespace: flux-system\nspec:\n  chartRef:\n    kind: OCIRepository\n    name: cluster-manifests\n---\n" +
			generator("gen", "  sources:\n    - alias: oci\n      kind: OCIRepository\n      name: cluster-manifests\n  artifacts:\n    - name: web\n      copy:\n        - from: \"@oci/apps/web/**\"\n          to: \"@artifact/\"\n") +
			eaKs("composed", "web", "./"),
		"kubernetes/apps/web/svc.yaml":  svc,
		"kubernetes/drafts/svc.yaml":    svc,
		"kubernetes/images/logo.png":    "",
		"apps/svc.yaml":                 svc,
		"kubernetes/apps/web/extra.png": "",
	})
	res := load(t, root, []string{filepath.Join(root, "clusters")}, Options{Sources: []string{manifests, "OCIRepository/flux-system/elsewhere=nowhere"}}, nil)
	want := []string{
		"not followed: Kustomization flux-system/outside: path ../apps is outside OCIRepository flux-system/cluster-manifests",
		"not followed: Kustomization flux-system/missing: path ./nowhere is not a directory of OCIRepository flux-system/cluster-manifests",
		`not followed: Kustomization flux-system/drafts: path ./drafts is not in OCIRepository flux-system/cluster-manifests: pattern "/drafts/" of OCIRepository flux-system/cluster-manifests's spec.ignore`,
		// The CLI pushes the directory, without its only file.
		"followed: Kustomization flux-system/images -> images/ of OCIRepository flux-system/cluster-manifests (0 objects)",
		"not followed: Kustomization flux-system/elsewhere: OCIRepository flux-system/elsewhere is pushed from nowhere (--flux-source), which is not a directory of this repository",
		"not followed: HelmRelease flux-system/chart: chart from OCIRepository flux-system/cluster-manifests (spec.chartRef): charts of OCIRepositories are not rendered by contourc, even of one named with --flux-source",
		"followed: Kustomization flux-system/composed -> ./ of ExternalArtifact flux-system/web (1 object)",
	}
	if got := reports(res); !slices.Equal(got, want) {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The build reads only the artifact: a kustomization reaching the
// checkout beside the pushed directory fails as in Flux (the path it
// names is above the artifact's view, as for an ExternalArtifact).
func TestOCIRepositoryHasOnlyItsFiles(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"clusters/ks.yaml":                       ociKs("web", "./apps/web", ""),
		"kubernetes/apps/web/kustomization.yaml": "resources: [svc.yaml, ../../../shared/cm.yaml]\n",
		"kubernetes/apps/web/svc.yaml":           svc,
		"shared/cm.yaml":                         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n",
	})
	_, err := loader.Load([]string{filepath.Join(root, "clusters")}, loader.Options{Follow: &loader.Follow{Followers: []loader.Follower{New(Options{Sources: []string{manifests}})}}})
	if err == nil {
		t.Fatal("no error")
	}
	if msg, want := strings.ReplaceAll(err.Error(), root+"/", ""), "accumulating resources from '../../../shared/cm.yaml': open .contourc-OCIRepository/flux-system/shared/cm.yaml: no such file or directory"; !strings.Contains(msg, want) {
		t.Errorf("error:\n%s\nwant one with %q", msg, want)
	}
}
