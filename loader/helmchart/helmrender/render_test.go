package helmrender

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contourc/contourc/loader/helmchart"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const webChart = "../testdata/web"

// print writes a result as helm template prints it, with each document's
// file and line added to its Source comment and the skipped dependencies
// first.
func print(r *helmchart.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Chart: %s\n", r.Chart)
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "# Skipped: %s: %s\n", s.Name, s.Reason)
	}
	for _, m := range r.Manifests {
		fmt.Fprintf(&b, "---\n# Source: %s (%s:%d)\n%s\n", m.Template, m.File, m.Line, m.Content)
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (go test -update to accept):\n%s", name, file, got)
	}
}

func TestRenderGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts helmchart.Options
	}{
		{"defaults", helmchart.Options{}},
		{"prod", helmchart.Options{
			ReleaseName: "shop",
			Namespace:   "web",
			ValueFiles:  []string{webChart + "/values-prod.yaml"},
			Set:         []string{"backend.enabled=false"},
		}},
		{"crds-no-tests", helmchart.Options{IncludeCRDs: true, SkipTests: true, Set: []string{"image.tag=v9"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Render(webChart, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, print(r))
		})
	}
}

// TestRenderDeterministic: the engine renders templates from a map; the
// output must not depend on its order.
func TestRenderDeterministic(t *testing.T) {
	first, err := Render(webChart, helmchart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := print(first)
	for i := 0; i < 20; i++ {
		r, err := Render(webChart, helmchart.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := print(r); got != want {
			t.Fatalf("run %d differs:\n%s", i, got)
		}
	}
}

// TestValueOrder: -f files in order, then Values, then --set, then
// --set-string, each over the ones before, as helm template merges them.
func TestValueOrder(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.yaml")
	b := filepath.Join(dir, "b.yaml")
	write(t, a, "host: a.example.com\nservice: {port: 81}\n")
	write(t, b, "host: b.example.com\n")
	// All the templates need, but replicas, which values.yaml sets to 1.
	hostFile := filepath.Join(dir, "host.txt")
	write(t, hostFile, "f.example.com")
	whole := filepath.Join(dir, "whole.yaml")
	write(t, whole, "host: w.example.com\nimage: {repository: w, tag: v1}\nservice: {port: 82}\ntls: {secretName: \"\"}\nbackend: {enabled: false, port: 9000}\n")
	for _, tc := range []struct {
		name string
		opts helmchart.Options
		want []string // substrings of the HTTPProxy
	}{
		{"chart values", helmchart.Options{}, []string{"fqdn: web.example.com", "port: 80"}},
		{"files in order", helmchart.Options{ValueFiles: []string{a, b}}, []string{"fqdn: b.example.com", "port: 81"}},
		{"files merge maps", helmchart.Options{ValueFiles: []string{b, a}}, []string{"fqdn: a.example.com", "port: 81"}},
		{"values over files", helmchart.Options{ValueFiles: []string{a},
			Values: map[string]any{"host": "v.example.com"}}, []string{"fqdn: v.example.com", "port: 81"}},
		{"set over values", helmchart.Options{Values: map[string]any{"host": "v.example.com"},
			Set: []string{"host=s.example.com"}}, []string{"fqdn: s.example.com"}},
		{"set-string over set", helmchart.Options{Set: []string{"host=s.example.com"},
			SetString: []string{"host=ss.example.com"}}, []string{"fqdn: ss.example.com"}},
		{"set-file over set-string: the file's content", helmchart.Options{SetString: []string{"host=ss.example.com"},
			SetFile: []string{"host=" + hostFile}}, []string{"fqdn: f.example.com"}},
		{"release name", helmchart.Options{ReleaseName: "web"}, []string{"name: web\n", "name: web-backend"}},
		{"release name default", helmchart.Options{}, []string{"name: release-name-web\n"}},
		{"subchart value from parent", helmchart.Options{Set: []string{"backend.port=9100"}}, []string{"port: 9100"}},
		{"condition false drops subchart route", helmchart.Options{Set: []string{"backend.enabled=false"}}, []string{"fqdn: web.example.com"}},
		{"files over chart values", helmchart.Options{ValueFiles: []string{whole}}, []string{"fqdn: w.example.com", "port: 82", "replicas: 1\n"}},
		{"files replace chart values", helmchart.Options{ValueFiles: []string{whole}, ReplaceChartValues: true, SkipSchemaValidation: true},
			[]string{"fqdn: w.example.com", "port: 82", "replicas: \n"}},
		{"missing value file ignored", helmchart.Options{ValueFiles: []string{filepath.Join(dir, "none.yaml")},
			IgnoreMissingValueFiles: true}, []string{"fqdn: web.example.com"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Render(webChart, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			all := print(r)
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
		})
	}
}

func TestSubchartCondition(t *testing.T) {
	r, err := Render(webChart, helmchart.Options{Set: []string{"backend.enabled=false"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range r.Manifests {
		if strings.Contains(m.Template, "/charts/backend/") {
			t.Errorf("backend.enabled=false still renders %s", m.Template)
		}
	}
}

func TestNamespaceAndKubeVersion(t *testing.T) {
	if v := helmchart.BuiltForKubeVersion(); !strings.HasPrefix(v, "v1.") {
		t.Fatalf("BuiltForKubeVersion() = %q", v)
	}
	r, err := Render(webChart, helmchart.Options{Namespace: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(print(r), "namespace: shop") {
		t.Errorf("the subchart's Service is not in the release namespace:\n%s", print(r))
	}
	// The chart wants >=1.25.
	_, err = Render(webChart, helmchart.Options{KubeVersion: "1.24.0"})
	wantErr(t, err, "chart ../testdata/web (release default/release-name): chart requires kubeVersion: >=1.25.0-0 which is incompatible with Kubernetes v1.24.0")
}

func TestRenderErrors(t *testing.T) {
	bad := t.TempDir()
	copyChart(t, webChart, bad)
	write(t, filepath.Join(bad, "templates", "broken.yaml"), "kind: ConfigMap\nname: {{ .Values.host.nothere.x }}\n")
	unclosed := t.TempDir()
	copyChart(t, webChart, unclosed)
	write(t, filepath.Join(unclosed, "templates", "unclosed.yaml"), "kind: ConfigMap\n\nname: {{ .Values.host\n")
	notYAML := t.TempDir()
	copyChart(t, webChart, notYAML)
	write(t, filepath.Join(notYAML, "templates", "cm.yaml"), "kind: ConfigMap\n  data: [\n")
	library := t.TempDir()
	write(t, filepath.Join(library, "Chart.yaml"), "apiVersion: v2\nname: lib\nversion: 1.0.0\ntype: library\n")

	for _, tc := range []struct {
		name, dir string
		opts      helmchart.Options
		want      string
	}{
		{"required value", webChart, helmchart.Options{Set: []string{"host="}, SkipSchemaValidation: true},
			"execution error at (../testdata/web/templates/proxy.yaml:9:13): host is required"},
		{"schema", webChart, helmchart.Options{Set: []string{"replicas=many"}},
			"values don't meet the specifications of the schema(s) in the following chart(s):\nweb:\n- at '/replicas': got string, want integer"},
		{"schema minimum", webChart, helmchart.Options{Set: []string{"replicas=-1"}}, "- at '/replicas': minimum: got -1, want 0"},
		{"schema skipped", webChart, helmchart.Options{Set: []string{"replicas=-1"}, SkipSchemaValidation: true}, ""},
		{"nil pointer", bad, helmchart.Options{},
			bad + "/templates/broken.yaml:2:16: executing \"" + bad + "/templates/broken.yaml\" at <.Values.host.nothere.x>: can't evaluate field nothere in type interface {}"},
		{"parse error", unclosed, helmchart.Options{},
			"parse error at (" + unclosed + "/templates/unclosed.yaml:4): unclosed action started at " + unclosed + "/templates/unclosed.yaml:3"},
		{"rendered YAML", notYAML, helmchart.Options{}, "YAML parse error on " + notYAML + "/templates/cm.yaml"},
		{"value file", webChart, helmchart.Options{ValueFiles: []string{"/nonexistent/values.yaml"}},
			"open /nonexistent/values.yaml: no such file or directory"},
		{"set-file missing", webChart, helmchart.Options{SetFile: []string{"host=/nonexistent/host.txt"}},
			"failed parsing --set-file data: open /nonexistent/host.txt: no such file or directory"},
		{"set syntax", webChart, helmchart.Options{Set: []string{"a[=1"}}, "failed parsing --set data"},
		{"kube version", webChart, helmchart.Options{KubeVersion: "one"}, `invalid kube version "one"`},
		{"library", library, helmchart.Options{}, "library charts are not installable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Render(tc.dir, tc.opts)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantErr(t, err, tc.want)
			if !strings.HasPrefix(err.Error(), helmchart.Describe(tc.dir, tc.opts)+": ") {
				t.Errorf("error does not name the chart and release: %v", err)
			}
		})
	}
}

func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want one containing %q", err, want)
	}
}

func write(t *testing.T, file, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyChart(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		write(t, filepath.Join(to, rel), string(bytes.Clone(data)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLocalDependency: a dependency of Chart.yaml that charts/ lacks but
// that is in the repository (file://) is rendered, as after helm
// dependency build, under its alias; a remote one is listed as skipped.
func TestLocalDependency(t *testing.T) {
	dir := t.TempDir()
	umbrella := filepath.Join(dir, "umbrella")
	copyChart(t, webChart, filepath.Join(dir, "web"))
	write(t, filepath.Join(umbrella, "Chart.yaml"), `apiVersion: v2
name: umbrella
version: 0.1.0
dependencies:
  - name: web
    version: 1.2.0
    repository: file://../web
    alias: site
  - name: db
    version: 2.0.0
    repository: oci://registry.example.com/charts
`)
	write(t, filepath.Join(umbrella, "values.yaml"), "site:\n  host: site.example.com\n")
	r, err := Render(umbrella, helmchart.Options{ReleaseName: "u"})
	if err != nil {
		t.Fatal(err)
	}
	out := print(r)
	for _, want := range []string{
		"# Source: umbrella/charts/site/templates/proxy.yaml (" + filepath.Join(dir, "web") + "/templates/proxy.yaml:1)",
		"fqdn: site.example.com",
		"name: u-site\n", // the alias is .Chart.Name
		"# Skipped: db: chart db 2.0.0 from a remote repository oci://registry.example.com/charts is not in umbrella/charts/",
		"# Skipped: web/cache: chart cache 17.0.0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
