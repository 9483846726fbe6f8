package argocd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contourc/contourc/internal/testfs"
)

const thisURL = "https://example.com/org/repo.git"

func isThis(u string) bool { return u == thisURL }

func decodeApp(t *testing.T, text string) *Application {
	t.Helper()
	app, err := Decode([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return app
}

func TestPlan(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"apps/web/kustomization.yaml":  "resources: []\n",
		"apps/both/Chart.yaml":         "name: both\n",
		"apps/both/kustomization.yaml": "resources: []\n",
		"apps/odd/kustomization.yaml":  "resources: []\n",
		"apps/odd/myChart.yaml":        "name: odd\n",
		"charts/web/Chart.yaml":        "name: web\n",
		"plain/proxy.yaml":             "kind: x\n",
		"plain/file.txt":               "",
		"over/kustomization.yaml":      "resources: []\n",
		"over/.argocd-source.yaml":     "kustomize:\n  namePrefix: a-\n  namespace: ns1\n",
		"over/.argocd-source-web.yaml": "kustomize:\n  namespace: ns2\npath: elsewhere\n",
	})
	for _, tc := range []struct {
		name, spec string
		// want is, per source, its type or "not followed: reason".
		want []string
	}{
		{"kustomize discovered", `source: {repoURL: ` + thisURL + `, path: apps/web}`, []string{"Kustomize apps/web"}},
		{"directory discovered", `source: {repoURL: ` + thisURL + `, path: plain}`, []string{"Directory plain"}},
		{"helm discovered", `source: {repoURL: ` + thisURL + `, path: charts/web}`, []string{"Helm charts/web"}},
		{"kustomize wins over Chart.yaml", `source: {repoURL: ` + thisURL + `, path: apps/both}`, []string{"Kustomize apps/both"}},
		// Argo CD's discovery lets the last file in lexical order decide:
		// helm, which then finds no Chart.yaml.
		{"a later *Chart.yaml wins", `source: {repoURL: ` + thisURL + `, path: apps/odd}`, []string{"not followed: helm source at apps/odd holds no Chart.yaml"}},
		{"explicit directory", `source: {repoURL: ` + thisURL + `, path: apps/web, directory: {}}`, []string{"Directory apps/web"}},
		{"root path", `source: {repoURL: ` + thisURL + `, path: .}`, []string{"Directory ."}},
		{"two types", `source: {repoURL: ` + thisURL + `, path: apps/web, helm: {}, kustomize: {}}`, []string{"not followed: multiple application sources defined: Kustomize,Helm"}},
		{"plugin", `source: {repoURL: ` + thisURL + `, path: apps/web, plugin: {name: x}}`, []string{"not followed: a config management plugin source, which contourc cannot run"}},
		{"other repository", `source: {repoURL: https://example.com/org/other.git, path: apps/web}`, []string{"not followed: repoURL https://example.com/org/other.git is not this repository"}},
		{"remote chart", `source: {repoURL: https://charts.example.com, chart: ingress, targetRevision: 1.0.0}`, []string{"not followed: chart ingress from a remote repository (https://charts.example.com)"}},
		{"oci", `source: {repoURL: oci://registry.example.com/charts/web, path: .}`, []string{"not followed: an OCI artifact of oci://registry.example.com/charts/web, which contourc does not fetch"}},
		{"missing path", `source: {repoURL: ` + thisURL + `, path: apps/none}`, []string{"not followed: apps/none: app path does not exist"}},
		{"path out of the repository", `source: {repoURL: ` + thisURL + `, path: ../x}`, []string{"not followed: ../x: app path outside root"}},
		{"path a file", `source: {repoURL: ` + thisURL + `, path: plain/proxy.yaml}`, []string{"not followed: plain/proxy.yaml: app path is not a directory"}},
		{"helm without chart", `source: {repoURL: ` + thisURL + `, path: plain, helm: {}}`, []string{"not followed: helm source at plain holds no Chart.yaml"}},
		{"no source", `destination: {namespace: x}`, []string{"not followed: it has no source"}},
		{
			"multi-source: each source, the ref-only one lends its files",
			`sources:
- {repoURL: ` + thisURL + `, path: apps/web}
- {repoURL: ` + thisURL + `, ref: values}
- {repoURL: https://charts.example.com, chart: db}
- {repoURL: ` + thisURL + `, path: plain, ref: also}
source: {repoURL: ` + thisURL + `, path: charts/web}`,
			[]string{"Kustomize apps/web", `not followed: ref "values" only lends its files to the other sources`, "not followed: chart db from a remote repository (https://charts.example.com)", "Directory plain"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := decodeApp(t, "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: web, namespace: argocd}\nspec:\n"+indent(tc.spec))
			plans := Plan(app, root, isThis)
			var got []string
			for _, p := range plans {
				if !p.Followed() {
					got = append(got, "not followed: "+p.NotFollowed)
					continue
				}
				got = append(got, string(p.Type)+" "+p.Path)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func indent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestPlanOverrides: .argocd-source.yaml, then .argocd-source-<app>.yaml,
// are merged into the source; its repoURL and path stay the
// Application's.
func TestPlanOverrides(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"over/kustomization.yaml":      "resources: []\n",
		"over/.argocd-source.yaml":     "kustomize:\n  namePrefix: a-\n  namespace: ns1\n",
		"over/.argocd-source-web.yaml": "kustomize:\n  namespace: ns2\npath: elsewhere\n",
	})
	app := decodeApp(t, "metadata: {name: web}\nspec:\n  source: {repoURL: "+thisURL+", path: over, kustomize: {nameSuffix: -x}}\n")
	p := Plan(app, root, isThis)[0]
	if !p.Followed() {
		t.Fatal(p.NotFollowed)
	}
	got, _ := json.Marshal(p.Source)
	want := `{"repoURL":"` + thisURL + `","path":"over","kustomize":{"namePrefix":"a-","nameSuffix":"-x","namespace":"ns2"}}`
	if string(got) != want {
		t.Errorf("source = %s\nwant      %s", got, want)
	}
	if p.Dir != filepath.Join(root, "over") {
		t.Errorf("Dir = %s", p.Dir)
	}
}

func TestPlanDirectoryAndHelm(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"plain/a.yaml":           "kind: x\n",
		"plain/b.yaml":           "kind: x\n",
		"charts/web/Chart.yaml":  "name: web\n",
		"charts/web/values.yaml": "a: 1\n",
	})
	app := decodeApp(t, `metadata: {name: web}
spec:
  destination: {namespace: web}
  sources:
  - {repoURL: `+thisURL+`, path: plain, directory: {exclude: b.yaml}}
  - {repoURL: `+thisURL+`, path: charts/web, helm: {valueFiles: [values.yaml]}}
`)
	plans := Plan(app, root, isThis)
	if len(plans[0].Files) != 1 || filepath.Base(plans[0].Files[0]) != "a.yaml" || plans[0].Namespace != "web" {
		t.Errorf("directory plan = %+v", plans[0])
	}
	if h := plans[1].Helm; h.ReleaseName != "web" || h.Namespace != "web" || len(h.ValueFiles) != 1 {
		t.Errorf("helm plan = %+v", h)
	}
	if plans[0].Label != "source 1" || plans[1].Label != "source 2" {
		t.Errorf("labels = %q, %q", plans[0].Label, plans[1].Label)
	}
}
