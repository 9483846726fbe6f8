package flux

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/loader/flux/artifact"
	"github.com/contourc/contourc/loader/flux/fluxgen"
)

// proxyNamed is an HTTPProxy of the web namespace.
func proxyNamed(name string) string {
	return "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  name: " + name + "\n  namespace: web\nspec:\n  virtualhost:\n    fqdn: " + name + ".example.com\n  routes:\n  - services:\n    - name: web\n      port: 80\n"
}

// gitRepository is the bootstrap GitRepository with spec.ignore.
func gitRepository(ignore string) string {
	s := "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: https://github.com/example/fleet\n"
	if ignore != "" {
		s += "  ignore: |\n    " + strings.ReplaceAll(strings.TrimSuffix(ignore, "\n"), "\n", "\n    ") + "\n"
	}
	return s + "---\n"
}

// kustomizeFile is a kustomization listing resources.
func kustomizeFile(resources ...string) string {
	return "resources:\n- " + strings.Join(resources, "\n- ") + "\n"
}

// A Kustomization is built from the GitRepository's artifact, not from the
// checkout: what source-controller leaves out (its default exclusions,
// .sourceignore files, spec.ignore, symbolic links) is neither listed by
// the generator nor found by kustomize. Each case failed before: the
// generator listed every file of the checkout and kustomize read them.
func TestArtifactIgnoreRules(t *testing.T) {
	src := "  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
	for _, tc := range []struct {
		name    string
		files   map[string]string
		links   map[string]string // link -> target
		proxies []string          // HTTPProxies built, sorted
		entries []string          // entry reports, when checked
		err     string            // the load's error, when it fails
	}{
		{
			name: "default exclusions: a .sops.yaml and CI files beside the manifests are not listed",
			files: map[string]string{
				"apps/web/proxy.yaml":                proxyNamed("web"),
				"apps/web/.sops.yaml":                "creation_rules:\n- path_regex: .*.yaml\n",
				"apps/web/.github/workflows/ci.yaml": "on: push\njobs: {}\n",
				"apps/web/cloudbuild.yaml":           "steps: []\n",
			},
			proxies: []string{"web/web"},
		},
		{
			name: "a .sourceignore leaves files out, from its own directory",
			files: map[string]string{
				"apps/web/proxy.yaml":        proxyNamed("web"),
				"apps/web/drafts/draft.yaml": proxyNamed("draft"),
				"apps/web/.sourceignore":     "/drafts/\n",
				"drafts/other.yaml":          "",
			},
			proxies: []string{"web/web"},
		},
		{
			name: "a .sourceignore replaces the default exclusions",
			files: map[string]string{
				"apps/web/proxy.yaml":       proxyNamed("web"),
				"apps/web/cloudbuild.yaml":  proxyNamed("cloudbuild"),
				"apps/web/local/local.yaml": proxyNamed("local"),
				"apps/web/.sourceignore":    "/local/\n",
			},
			proxies: []string{"web/cloudbuild", "web/web"},
		},
		{
			name: "spec.ignore leaves a Kustomization's path out of the artifact",
			files: map[string]string{
				"apps/web/proxy.yaml": proxyNamed("web"),
				"docs/proxy.yaml":     proxyNamed("docs"),
				"clusters/repo.yaml":  gitRepository("/*\n!/apps/\n!/clusters/\n"),
			},
			proxies: []string{"web/web"},
			entries: []string{
				"followed: Kustomization flux-system/web -> apps/web/ (1 object)",
				"not followed: Kustomization flux-system/docs: path ./docs is not in the artifact of GitRepository flux-system/flux-system: pattern \"/*\" of GitRepository flux-system/flux-system's spec.ignore",
			},
		},
		{
			name: "a kustomization naming a file the artifact lacks fails, saying why",
			files: map[string]string{
				"apps/web/kustomization.yaml": kustomizeFile("proxy.yaml", "secret.yaml"),
				"apps/web/proxy.yaml":         proxyNamed("web"),
				"apps/web/secret.yaml":        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: web\n",
				"apps/web/.sourceignore":      "secret.yaml\n",
			},
			err: `not in the artifact of GitRepository flux-system/flux-system: pattern "secret.yaml" of apps/web/.sourceignore`,
		},
		{
			name: "a kustomization the artifact lacks: the generator lists the directory",
			files: map[string]string{
				"apps/web/kustomization.yaml": kustomizeFile("proxy.yaml"),
				"apps/web/proxy.yaml":         proxyNamed("web"),
				"apps/web/extra.yaml":         proxyNamed("extra"),
				"apps/web/.sourceignore":      "kustomization.yaml\n",
			},
			proxies: []string{"web/extra", "web/web"},
		},
		{
			name: "symbolic links are not in the artifact",
			files: map[string]string{
				"apps/web/proxy.yaml":  proxyNamed("web"),
				"shared/alias.yaml":    proxyNamed("alias"),
				"shared/dir/deep.yaml": proxyNamed("deep"),
			},
			links:   map[string]string{"apps/web/alias.yaml": "../../shared/alias.yaml", "apps/web/dir": "../../shared/dir"},
			proxies: []string{"web/web"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{
				"clusters/ks.yaml": ks("kustomize.toolkit.fluxcd.io/v1", "web", "  path: ./apps/web\n"+src) +
					ks("kustomize.toolkit.fluxcd.io/v1", "docs", "  path: ./docs\n"+src),
				"docs/.keep.yaml": "",
			}
			for k, v := range tc.files {
				files[k] = v
			}
			root := writeRepo(t, files)
			for link, target := range tc.links {
				if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
					t.Skip(err)
				}
			}
			res, err := loader.Load([]string{filepath.Join(root, "clusters")}, loader.Options{Follow: &loader.Follow{Followers: []loader.Follower{New(Options{})}}})
			if tc.err != "" {
				if testing.Verbose() && err != nil {
					t.Log(err)
				}
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range res.Objects {
				if o.Kind == "HTTPProxy" {
					got = append(got, o.Obj.GetNamespace()+"/"+o.Obj.GetName())
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.proxies) {
				t.Errorf("HTTPProxies %v, want %v (entries %v)", got, tc.proxies, reports(res))
			}
			if tc.entries != nil {
				if r := reports(res); !slices.Equal(r, tc.entries) {
					t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(r, "\n"), strings.Join(tc.entries, "\n"))
				}
			}
		})
	}
}

// With nothing left out, the listing made over the artifact and handed to
// the generator gives the kustomization Flux's generator makes listing the
// directory itself, byte for byte.
func TestListingAsFluxGenerates(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"apps/web/proxy.yaml":           proxyNamed("web"),
		"apps/web/b/svc.yml":            svc,
		"apps/web/a/kustomization.yaml": kustomizeFile("x.yaml"),
		"apps/web/a/x.yaml":             proxyNamed("x"),
		"apps/web/notes.txt":            "not a manifest",
		"apps/web/z/deeper/more.yaml":   proxyNamed("more"),
	})
	obj := ks("kustomize.toolkit.fluxcd.io/v1", "web", "  path: ./apps/web\n  targetNamespace: web\n  namePrefix: p-\n  images:\n  - name: web\n    newTag: v2\n")
	u := decodeKustomization(t, obj)
	dir := filepath.Join(root, "apps/web")
	art, err := artifact.Load(root, "GitRepository flux-system/flux-system", "")
	if err != nil {
		t.Fatal(err)
	}
	req, err := generateRequest(checkout{root: root}, art, dir, u)
	if err != nil {
		t.Fatal(err)
	}
	if req.Base == nil || !req.Base.Listed {
		t.Fatalf("request %+v: want a listing", req)
	}
	ours, err := fluxgen.Generate(req)
	if err != nil {
		t.Fatal(err)
	}
	req.Base = nil
	theirs, err := fluxgen.Generate(req)
	if err != nil {
		t.Fatal(err)
	}
	if ours.File != theirs.File || string(ours.Data) != string(theirs.Data) {
		t.Errorf("over the artifact %s:\n%s\nFlux's generator %s:\n%s", ours.File, ours.Data, theirs.File, theirs.Data)
	}
}

func decodeKustomization(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(strings.TrimSuffix(doc, "---\n")), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}
