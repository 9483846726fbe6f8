package loader

import (
	"slices"
	"strings"
	"testing"

	"github.com/contourc/contourc/internal/testfs"
)

const kzProxy = `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata:
  name: web
spec:
  virtualhost:
    fqdn: web.example.com
`

// kzTree is a base, an overlay that renames its objects and generates a
// ConfigMap, a JSON source file, an unused file and a plain one.
var kzTree = map[string]string{
	"base/kustomization.yaml": "resources:\n- proxy.yaml\n- service.json\n",
	"base/proxy.yaml":         "# a comment first\n" + kzProxy,
	"base/service.json":       "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Service\",\n  \"metadata\": {\"name\": \"web\"},\n  \"spec\": {\"ports\": [{\"port\": 80}]}\n}\n",
	// kustomize's file name without an extension, which a walk must see.
	"prod/Kustomization": "namePrefix: prod-\nresources:\n- ../base\nconfigMapGenerator:\n- name: settings\n  literals:\n  - a=b\n",
	"prod/unused.yaml":   kzProxy,
	"plain/proxy.yaml":   strings.Replace(kzProxy, "name: web", "name: plain", 1),
	// A Flux Kustomization in a file of kustomize's name is an object.
	"flux/kustomization.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  path: ./prod\n",
}

func TestLoadBuildsKustomizations(t *testing.T) {
	root := t.TempDir()
	testfs.Write(t, root, kzTree)
	t.Chdir(root)
	res, err := Load([]string{"."}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range res.Objects {
		got = append(got, o.Kind+" "+o.Obj.GetNamespace()+"/"+o.Obj.GetName()+" "+o.Source.String())
	}
	want := []string{
		"ConfigMap default/prod-settings-" + configMapHash(t, res) + " prod/Kustomization (via prod)",
		"HTTPProxy default/plain plain/proxy.yaml:1",
		"HTTPProxy default/prod-web base/proxy.yaml:2 (via prod)",
		"Service default/prod-web base/service.json:1 (via prod)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := res.Skipped["kustomize.toolkit.fluxcd.io/v1/Kustomization"]; n != 1 {
		t.Errorf("Flux Kustomizations skipped: %d, want 1 (%v)", n, res.Skipped)
	}
	if want := []NotRead{{File: "prod/unused.yaml", Kustomization: "prod"}}; !slices.Equal(res.NotRead, want) {
		t.Errorf("not read: got %v, want %v", res.NotRead, want)
	}
}

// configMapHash is the hash suffix kustomize gave the generated ConfigMap.
func configMapHash(t *testing.T, res *Result) string {
	for _, o := range res.Objects {
		if o.Kind == "ConfigMap" {
			return strings.TrimPrefix(o.Obj.GetName(), "prod-settings-")
		}
	}
	t.Fatal("no ConfigMap built")
	return ""
}

func TestLoadKustomizationPaths(t *testing.T) {
	root := t.TempDir()
	testfs.Write(t, root, kzTree)
	t.Chdir(root)
	tests := []struct {
		name  string
		paths []string
		want  []string // kind/name source
	}{
		// A file named as a PATH is read as it is, kustomization or not.
		{"a file of a kustomization", []string{"prod/unused.yaml"}, []string{"HTTPProxy/web prod/unused.yaml:1"}},
		// A kustomization file named as a PATH builds its directory.
		{"a kustomization file", []string{"base/kustomization.yaml"}, []string{"HTTPProxy/web base/proxy.yaml:2 (via base)", "Service/web base/service.json:1 (via base)"}},
		// A base given on its own is built on its own.
		{"a base", []string{"base"}, []string{"HTTPProxy/web base/proxy.yaml:2 (via base)", "Service/web base/service.json:1 (via base)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Load(tc.paths, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range res.Objects {
				got = append(got, o.Kind+"/"+o.Obj.GetName()+" "+o.Source.String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLoadKustomizationErrors(t *testing.T) {
	root := t.TempDir()
	testfs.Write(t, root, map[string]string{
		"base/kustomization.yaml":  "resources:\n- proxy.yaml\n",
		"base/proxy.yaml":          kzProxy + "  unknownField: 1\n",
		"a/kustomization.yaml":     "resources:\n- ../base\n",
		"b/kustomization.yaml":     "resources:\n- ../base\n",
		"broken/kustomization.yml": "resources:\n- nothing-here.yaml\n",
	})
	t.Chdir(root)
	for _, tc := range []struct {
		path string
		want string
	}{
		// The source has the same error: its line.
		{"a", "base/proxy.yaml:8 (via a): HTTPProxy default/web: unknown field"},
		{".", "a: builds the same objects as b (HTTPProxy web): give contourc one of them as PATH"},
		{"broken", "broken/kustomization.yml: kustomize build failed: "},
	} {
		_, err := Load([]string{tc.path}, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%s): got %v, want an error containing %q", tc.path, err, tc.want)
		}
	}
}

// TestOverlappingBuildsTellKindsApart: an overlay's build that holds a v1
// ServiceAccount and another API group's ServiceAccount of the same name
// overlaps neither itself nor another build.
func TestOverlappingBuildsTellKindsApart(t *testing.T) {
	root := t.TempDir()
	testfs.Write(t, root, map[string]string{
		"app/kustomization.yaml": "resources:\n- rbac.yaml\n",
		"app/rbac.yaml": "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: runner\n  namespace: ci\n---\n" +
			"apiVersion: talos.dev/v1alpha1\nkind: ServiceAccount\nmetadata:\n  name: runner\n  namespace: ci\n",
		"other/kustomization.yaml": "resources:\n- proxy.yaml\n",
		"other/proxy.yaml":         kzProxy,
	})
	t.Chdir(root)
	res, err := Load([]string{"."}, Options{})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(res.Objects) == 0 {
		t.Error("no objects")
	}
}
