package survey

import (
	"reflect"
	"testing"

	"github.com/contourc/contourc/internal/testfs"
)

// Which kustomizations are roots, and which roots are alternatives: those
// that include a kustomization in common, through any depth.
func TestRootGroups(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  [][]string
	}{
		{"one", map[string]string{"a/kustomization.yaml": "resources: [x.yaml]\n"}, [][]string{{"a"}}},
		{"base included", map[string]string{
			"base/kustomization.yaml":   "resources: []\n",
			"prod/kustomization.yaml":   "resources: [../base]\n",
			"single/kustomization.yaml": "resources: []\n",
		}, [][]string{{"prod"}, {"single"}}},
		{"overlays through a component", map[string]string{
			"base/kustomization.yaml":      "resources: []\n",
			"mid/kustomization.yaml":       "resources: [../base]\n",
			"o/a/kustomization.yaml":       "bases: [../../mid]\n",
			"o/b/kustomization.yaml":       "components: [../../base]\n",
			"o/c/kustomization.yaml":       "resources: [https://example.com/remote]\n",
			"root/Kustomization":           "resources: [../o/c]\n",
			"unrelated/kustomization.yaml": "resources: [missing-dir]\n",
		}, [][]string{{"o/a", "o/b"}, {"root"}, {"unrelated"}}},
		// a and b share nothing, each shares a base with c: one group.
		{"linked through a third", map[string]string{
			"x/kustomization.yaml": "resources: []\n",
			"y/kustomization.yaml": "resources: []\n",
			"a/kustomization.yaml": "resources: [../x]\n",
			"b/kustomization.yaml": "resources: [../y]\n",
			"c/kustomization.yaml": "resources: [../x, ../y]\n",
		}, [][]string{{"a", "b", "c"}}},
		{"the repository itself", map[string]string{
			"kustomization.yaml":     "resources: [apps]\n",
			"apps/kustomization.yml": "resources: []\n",
		}, [][]string{{"."}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			testfs.Write(t, dir, c.files)
			sv, err := Repository(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(sv.Roots, c.want) {
				t.Errorf("roots = %v, want %v", sv.Roots, c.want)
			}
		})
	}
}

// Objects of Helm charts and hidden directories are not read; an object
// two overlays declare is taken once, from the first file.
func TestObjectsRead(t *testing.T) {
	dir := t.TempDir()
	svc := "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: ns}\nspec: {ports: [{port: 80}]}\n"
	proxy := "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata: {name: p, namespace: ns}\nspec:\n  virtualhost: {fqdn: a.example.com}\n  routes: [{services: [{name: s, port: 80}, {name: gone, port: 81}]}]\n"
	testfs.Write(t, dir, map[string]string{
		"a/svc.yaml":             svc,
		"b/svc.yaml":             svc,
		"b/proxy.yaml":           proxy,
		"chart/Chart.yaml":       "name: c\n",
		"chart/templates/x.yaml": "{{ .Values.x }}\n",
		".hidden/x.yaml":         "not: [valid",
	})
	sv, err := Repository(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(sv.Unread) != 0 {
		t.Errorf("unread = %v, want none", sv.Unread)
	}
	want := []Missing{{Namespace: "ns", Name: "gone", Ports: []string{"81"}, By: "HTTPProxy ns/p (b/proxy.yaml:1)"}}
	if !reflect.DeepEqual(sv.MissingServices, want) {
		t.Errorf("missing services = %+v, want %+v", sv.MissingServices, want)
	}
	if !reflect.DeepEqual(sv.Loose, []string{"a", "b"}) {
		t.Errorf("loose = %v", sv.Loose)
	}
}
