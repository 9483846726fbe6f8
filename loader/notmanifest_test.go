package loader

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contourc/contourc/internal/testfs"
	"github.com/contourc/contourc/loader/ignore"
)

const skipDir = "testdata/skip"

// skipped describes res.SkippedFiles, one "path|files|reason|detail" line
// each, with paths relative to testdata/skip.
func skipped(res *Result) []string {
	var out []string
	for _, f := range res.SkippedFiles {
		rel := strings.TrimPrefix(filepath.ToSlash(f.Path), skipDir+"/")
		out = append(out, fmt.Sprintf("%s|%d|%s|%s", rel, f.Files, f.Reason, f.Detail))
	}
	return out
}

// TestSkipNotManifests checks which files of a repository that holds more
// than manifests are skipped, and why; the rest load.
func TestSkipNotManifests(t *testing.T) {
	res := mustLoad(t, skipDir)
	want := []string{
		"Taskfile.yml|1|not Kubernetes objects|line 1: no apiVersion and kind",
		"app-config.yaml|1|not Kubernetes objects|line 2: no apiVersion and kind",
		"chart/|3|Helm chart|holds Chart.yaml; to render it, give the chart directory as a PATH, with -f and --set as for helm template",
		"dashboard.json|1|not Kubernetes objects|line 1: no apiVersion and kind",
		"helm-template.yaml|1|Go template|line 4: {{ include \"web.fullname\" . }}",
		"json6902.yaml|1|not Kubernetes objects|line 1: a JSON patch (a list of operations)",
		"mixed.yaml|1|not Kubernetes objects|line 9: no apiVersion and kind",
		"patch-delete.yaml|1|not Kubernetes objects|line 12: a strategic-merge patch ($patch)",
		"patch-nested.yaml|1|not Kubernetes objects|line 9: a strategic-merge patch ($patch)",
		"quoted-template.yaml|1|Go template|line 7: {{ .Values.host }}",
	}
	got := skipped(res)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("skipped:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Actions in the values of a kind contourc skips (alerting templates)
	// leave the file a manifest: its Service is read.
	find(t, res, "Service", "default", "alerts")
	find(t, res, "Service", "default", "web")
	if len(res.Objects) != 2 {
		t.Errorf("loaded %d objects, want the 2 Services", len(res.Objects))
	}
	if res.Skipped["monitoring.coreos.com/v1/PrometheusRule"] != 1 {
		t.Errorf("the PrometheusRule was not counted as a skipped kind: %v", res.Skipped)
	}
	total, by := CountSkipped(res.SkippedFiles)
	if total != 12 || fmt.Sprint(by) != "[{not Kubernetes objects 7} {Go template 2} {Helm chart 3}]" {
		t.Errorf("CountSkipped: %d %v", total, by)
	}
}

// TestSkipNamedFiles checks files named on the command line: a chart's
// Chart.yaml is skipped by its name, a template by its actions.
func TestSkipNamedFiles(t *testing.T) {
	res := mustLoad(t, skipDir+"/chart/Chart.yaml", skipDir+"/chart/templates/proxy.yaml", skipDir+"/chart/values.yaml")
	want := []string{
		"chart/Chart.yaml|1|Helm chart|the Chart.yaml of a Helm chart",
		"chart/templates/proxy.yaml|1|Go template|line 4: {{ .Release.Name }}",
		"chart/values.yaml|1|not Kubernetes objects|line 1: no apiVersion and kind",
	}
	if got := skipped(res); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("skipped:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A chart named as the PATH is rendered (helmcharts_test.go).
}

// TestBrokenObjectsStayErrors checks that what says it is an object (has
// apiVersion or kind) is not skipped when it is broken.
func TestBrokenObjectsStayErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"apiVersion: v1\nmetadata:\n  name: a\n", "kind is missing"},
		{"kind: Service\nmetadata:\n  name: a\n", "apiVersion is missing"},
		{"- apiVersion: v1\n  kind: Service\n", "expected a Kubernetes object"},
		{"apiVersion: v1\nkind: Service\nmetadata:\n  name: a\nspec:\n  prots: []\n", `unknown field "spec.prots"`},
		// A template action in a string value of a kind contourc skips
		// does not hide a broken object in another document.
		{"apiVersion: x/v1\nkind: Rule\nspec: '{{ $labels }}'\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: Bad_Name\n", "metadata.name"},
	} {
		_, err := Load([]string{"-"}, Options{Stdin: strings.NewReader(c.text)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one saying %q", c.text, err, c.want)
		}
	}
}

// TestExclude checks --exclude: patterns relative to the PATH, a
// directory pattern pruning its subtree, negation, and what -v lists.
func TestExclude(t *testing.T) {
	m, err := ignore.Compile([]string{"*.json", "/chart/", "*.y*ml", "!apps/*.yaml", "!alerts.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Load([]string{skipDir}, Options{Exclude: m})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Taskfile.yml|0|excluded|--exclude *.y*ml",
		"app-config.yaml|0|excluded|--exclude *.y*ml",
		"chart/|0|excluded|--exclude /chart/",
		"dashboard.json|0|excluded|--exclude *.json",
		"helm-template.yaml|0|excluded|--exclude *.y*ml",
		"json6902.yaml|0|excluded|--exclude *.y*ml",
		"mixed.yaml|0|excluded|--exclude *.y*ml",
		"patch-delete.yaml|0|excluded|--exclude *.y*ml",
		"patch-nested.yaml|0|excluded|--exclude *.y*ml",
		"quoted-template.yaml|0|excluded|--exclude *.y*ml",
	}
	if got := skipped(res); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("skipped:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if total, _ := CountSkipped(res.SkippedFiles); total != 0 {
		t.Errorf("excluded files counted as skipped: %d", total)
	}
	find(t, res, "Service", "default", "web")
	find(t, res, "Service", "default", "alerts")

	// A file named on the command line is matched by its name.
	m, _ = ignore.Compile([]string{"web.yaml"})
	res, err = Load([]string{skipDir + "/apps/web.yaml"}, Options{Exclude: m})
	if err != nil || len(res.Objects) != 0 || len(res.SkippedFiles) != 1 {
		t.Errorf("a named file matching --exclude: %v, %d objects, skipped %v", err, len(res.Objects), res.SkippedFiles)
	}
}

// TestSkipKeptByCache checks that a file's notice comes back from the
// decode cache when the file is unchanged.
func TestSkipKeptByCache(t *testing.T) {
	c := NewCache()
	for i := 0; i < 2; i++ {
		res, err := Load([]string{skipDir + "/mixed.yaml", skipDir + "/apps"}, Options{Cache: c})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.SkippedFiles) != 1 || res.SkippedFiles[0].Reason != SkipNotObjects || len(res.Objects) != 1 {
			t.Fatalf("load %d: skipped %v, %d objects", i, res.SkippedFiles, len(res.Objects))
		}
	}
}

// TestSkipYttTemplates: Carvel ytt templates (Tanzu's GitOps repositories
// keep their manifests so) are skipped as templates, as Go templates are:
// their values are ytt's to compute, and read as written they are empty
// (an Ingress host of "" is the API server's error). A "#@" that is no
// comment leaves a file a manifest.
func TestSkipYttTemplates(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"ingress.yml": `#@ load("@ytt:data", "data")

apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: web}
spec:
  tls:
  - hosts:
      - #@ "web." + data.values.domain
    secretName: web-tls
  rules:
  - host: #@ "web." + data.values.domain
`,
		"overlay.yaml": `#@ load("@ytt:overlay", "overlay")
#@overlay/match by=overlay.subset({"kind": "Service"})
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {ports: [{port: 80}]}
`,
		"deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1 #@ data.values.replicas
`,
		"plain.yaml": `apiVersion: v1
kind: Service
metadata: {name: plain, annotations: {owner: "ops#@example.com"}}
spec: {ports: [{port: 80}]}
`,
	})
	res := mustLoad(t, root)
	var got []string
	for _, f := range res.SkippedFiles {
		got = append(got, fmt.Sprintf("%s|%s|%s", filepath.Base(f.Path), f.Reason, f.Detail))
	}
	want := []string{
		`deployment.yaml|ytt template|line 5: #@ data.values.replicas`,
		`ingress.yml|ytt template|line 1: #@ load("@ytt:data", "data")`,
		`overlay.yaml|ytt template|line 1: #@ load("@ytt:overlay", "overlay")`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("skipped:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(res.Objects) != 1 || res.Objects[0].Obj.GetName() != "plain" {
		t.Errorf("objects %d, want the plain Service", len(res.Objects))
	}
}
