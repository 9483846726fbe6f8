package kustomize

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// layout is a tree of files for an in-memory file system.
type layout map[string]string

func (l layout) fs(t *testing.T) filesys.FileSystem {
	t.Helper()
	fSys := filesys.MakeFsInMemory()
	for name, text := range l {
		if err := fSys.MkdirAll(filepath.Dir(name)); err != nil {
			t.Fatal(err)
		}
		if err := fSys.WriteFile(name, []byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	return fSys
}

// krustyOutput is what `kubectl kustomize dir` prints for the layout: the
// library's own build with its defaults.
func krustyOutput(t *testing.T, fSys filesys.FileSystem, dir string) string {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fSys, dir)
	if err != nil {
		t.Fatalf("krusty: %v", err)
	}
	y, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	return string(y)
}

// joined is a build's objects as one YAML stream, as kustomize prints
// them (through JSON, as ResMap.AsYaml does).
func joined(b *Build) string {
	var parts [][]byte
	for _, r := range b.Resources {
		y, err := sigsyaml.JSONToYAML(must(kyaml.NewRNode(r.Node).MarshalJSON()))
		if err != nil {
			panic(err)
		}
		parts = append(parts, y)
	}
	return string(bytes.Join(parts, []byte("---\n")))
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

const baseProxy = `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata:
  name: web
spec:
  virtualhost:
    fqdn: web.example.com
  routes:
  - services:
    - name: web
      port: 80
`

const baseService = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
  - port: 80
`

const baseKustomization = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- proxy.yaml
- service.yaml
`

func withBase(l layout) layout {
	l["/app/base/kustomization.yaml"] = baseKustomization
	l["/app/base/proxy.yaml"] = baseProxy
	l["/app/base/service.yaml"] = baseService
	return l
}

// origin is what a test expects of one built object.
type origin struct{ kind, name, file, configuredIn string }

func TestRunMatchesKrusty(t *testing.T) {
	tests := []struct {
		name    string
		files   layout
		dir     string
		origins []origin
		want    []string // substrings of the output
	}{{
		name:    "base",
		files:   withBase(layout{}),
		dir:     "/app/base",
		origins: []origin{{kind: "HTTPProxy", name: "web", file: "/app/base/proxy.yaml"}, {kind: "Service", name: "web", file: "/app/base/service.yaml"}},
	}, {
		name: "no apiVersion or kind",
		files: layout{
			"/app/kustomization.yaml": "resources:\n- proxy.yaml\n",
			"/app/proxy.yaml":         baseProxy,
		},
		dir:     "/app",
		origins: []origin{{kind: "HTTPProxy", name: "web", file: "/app/proxy.yaml"}},
	}, {
		name: "overlay with namePrefix and namespace",
		files: withBase(layout{
			"/app/overlays/prod/kustomization.yaml": "resources:\n- ../../base\nnamePrefix: prod-\nnamespace: prod\n",
		}),
		dir:     "/app/overlays/prod",
		origins: []origin{{kind: "HTTPProxy", name: "prod-web", file: "/app/base/proxy.yaml"}, {kind: "Service", name: "prod-web", file: "/app/base/service.yaml"}},
		want:    []string{"namespace: prod", "name: prod-web"},
	}, {
		name: "strategic-merge patch",
		files: withBase(layout{
			"/app/overlays/prod/kustomization.yaml": "resources:\n- ../../base\npatches:\n- path: fqdn.yaml\n",
			"/app/overlays/prod/fqdn.yaml":          "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  name: web\nspec:\n  virtualhost:\n    fqdn: prod.example.com\n",
		}),
		dir:     "/app/overlays/prod",
		origins: []origin{{kind: "HTTPProxy", name: "web", file: "/app/base/proxy.yaml"}, {kind: "Service", name: "web", file: "/app/base/service.yaml"}},
		want:    []string{"fqdn: prod.example.com"},
	}, {
		name: "JSON6902 patch",
		files: withBase(layout{
			"/app/overlays/prod/kustomization.yaml": "resources:\n- ../../base\npatches:\n- path: port.yaml\n  target:\n    kind: Service\n    name: web\n",
			"/app/overlays/prod/port.yaml":          "- op: replace\n  path: /spec/ports/0/port\n  value: 8080\n",
		}),
		dir:     "/app/overlays/prod",
		origins: []origin{{kind: "HTTPProxy", name: "web", file: "/app/base/proxy.yaml"}, {kind: "Service", name: "web", file: "/app/base/service.yaml"}},
		want:    []string{"port: 8080"},
	}, {
		name: "$patch: delete",
		files: withBase(layout{
			"/app/overlays/prod/kustomization.yaml": "resources:\n- ../../base\npatches:\n- path: delete.yaml\n",
			"/app/overlays/prod/delete.yaml":        "$patch: delete\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n",
		}),
		dir:     "/app/overlays/prod",
		origins: []origin{{kind: "HTTPProxy", name: "web", file: "/app/base/proxy.yaml"}},
	}, {
		name: "component",
		files: withBase(layout{
			"/app/overlays/prod/kustomization.yaml": "resources:\n- ../../base\ncomponents:\n- ../../components/tls\n",
			"/app/components/tls/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n" +
				"patches:\n- path: tls.yaml\n",
			"/app/components/tls/tls.yaml": "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  name: web\nspec:\n  virtualhost:\n    tls:\n      secretName: web-tls\n",
		}),
		dir:     "/app/overlays/prod",
		origins: []origin{{kind: "HTTPProxy", name: "web", file: "/app/base/proxy.yaml"}, {kind: "Service", name: "web", file: "/app/base/service.yaml"}},
		want:    []string{"secretName: web-tls", "fqdn: web.example.com"},
	}, {
		name: "configMapGenerator",
		files: layout{
			"/app/kustomization.yaml": "configMapGenerator:\n- name: settings\n  literals:\n  - a=b\n",
		},
		dir:     "/app",
		origins: []origin{{kind: "ConfigMap", name: "settings-", configuredIn: "/app/kustomization.yaml"}},
	}, {
		name: "the user's own origin annotations are taken off too",
		files: layout{
			"/app/kustomization.yaml": "buildMetadata: [originAnnotations, transformerAnnotations]\nresources:\n- proxy.yaml\nnamespace: web\n",
			"/app/proxy.yaml":         baseProxy,
		},
		dir:     "/app",
		origins: []origin{{kind: "HTTPProxy", name: "web", file: "/app/proxy.yaml"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fSys := tc.files.fs(t)
			want := krustyOutput(t, fSys, tc.dir)
			b, err := Run(fSys, tc.dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := joined(b)
			if strings.Contains(got, "config.kubernetes.io") {
				t.Errorf("kustomize's annotations left on the objects:\n%s", got)
			}
			if !strings.Contains(want, "config.kubernetes.io") && got != want {
				t.Errorf("output differs from kustomize's:\ngot:\n%s\nwant:\n%s", got, want)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
			if len(b.Resources) != len(tc.origins) {
				t.Fatalf("got %d objects, want %d:\n%s", len(b.Resources), len(tc.origins), got)
			}
			// Origins worked out from the files read are those kustomize's
			// origin tracking gives.
			tracked, err := runTracked(fSys, tc.dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range b.Resources {
				if b.Resources[i].Origin != tracked.Resources[i].Origin {
					t.Errorf("object %d: origin %+v, kustomize's %+v", i, b.Resources[i].Origin, tracked.Resources[i].Origin)
				}
			}
			for i, o := range tc.origins {
				r := b.Resources[i]
				if r.Kind != o.kind || !strings.HasPrefix(r.Name, o.name) || r.Origin.File != o.file || r.Origin.ConfiguredIn != o.configuredIn {
					t.Errorf("object %d: got %s %s from %+v, want %+v", i, r.Kind, r.Name, r.Origin, o)
				}
			}
		})
	}
}

func TestRunTracksOriginsWhenNamesAreAmbiguous(t *testing.T) {
	// Two bases with an HTTPProxy "web" each, renamed by prefixes: the
	// built names contain both source names, so the build is run again
	// with kustomize's origin tracking.
	files := layout{
		"/app/a/kustomization.yaml": "namePrefix: a-\nresources:\n- proxy.yaml\n",
		"/app/a/proxy.yaml":         baseProxy,
		"/app/b/kustomization.yaml": "namePrefix: b-\nresources:\n- proxy.yaml\n",
		"/app/b/proxy.yaml":         "# b's\n" + baseProxy,
		"/app/kustomization.yaml":   "resources:\n- a\n- b\n",
	}
	b, err := Run(files.fs(t), "/app", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Origin{{File: "/app/a/proxy.yaml", Line: 1}, {File: "/app/b/proxy.yaml", Line: 2}}
	var got []Origin
	for _, r := range b.Resources {
		got = append(got, r.Origin)
	}
	if !slices.Equal(got, want) {
		t.Errorf("origins %+v, want %+v", got, want)
	}
}
