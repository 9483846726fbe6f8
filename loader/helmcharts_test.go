package loader

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contourc/contourc/internal/testfs"
	"github.com/contourc/contourc/loader/helmchart"
	_ "github.com/contourc/contourc/loader/helmchart/helmrender"
)

const webChart = "helmchart/testdata/web"

// TestHelmChartPath: a chart given as a path is rendered with the load's
// options, in the load's namespace, each object at its template.
func TestHelmChartPath(t *testing.T) {
	res, err := Load([]string{webChart}, Options{Namespace: "shop", Helm: &helmchart.Options{ReleaseName: "shop", Set: []string{"backend.enabled=false"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range res.Objects {
		got = append(got, fmt.Sprintf("%s %s/%s %s", o.Kind, o.Obj.GetNamespace(), o.Obj.GetName(), o.Source))
	}
	want := []string{
		"HTTPProxy shop/shop-web helmchart/testdata/web/templates/proxy.yaml:1 (via chart helmchart/testdata/web, release shop/shop)",
		"HTTPProxy shop/shop-web-redirect helmchart/testdata/web/templates/proxy.yaml:29 (via chart helmchart/testdata/web, release shop/shop)",
		"Service shop/shop-web helmchart/testdata/web/templates/service.yaml:1 (via chart helmchart/testdata/web, release shop/shop)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("objects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].String(), "left out dependency cache: chart cache 17.0.0 from a remote repository") || !res.Warnings[0].Skipped {
		t.Errorf("warnings %v, want the remote dependency left out", res.Warnings)
	}
	if res.Skipped["apps/v1/Deployment"] != 1 {
		t.Errorf("skipped %v", res.Skipped)
	}
}

// TestHelmChartError: a template error fails the load, naming the chart.
func TestHelmChartError(t *testing.T) {
	_, err := Load([]string{webChart}, Options{Helm: &helmchart.Options{Set: []string{"service.port=null"}}})
	want := "helmchart/testdata/web: helm template failed: chart helmchart/testdata/web (release default/release-name): execution error at (helmchart/testdata/web/templates/service.yaml:12:15): service.port is required"
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

// TestHelmChartWalked: a chart found in a walk is not rendered.
func TestHelmChartWalked(t *testing.T) {
	res, err := Load([]string{"helmchart/testdata"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Objects) != 0 || len(res.SkippedFiles) != 1 || res.SkippedFiles[0].Reason != SkipHelmChart {
		t.Errorf("objects %d, skipped %v", len(res.Objects), res.SkippedFiles)
	}
}

// TestHelmChartObjectsKeepTheirNamespace: a chart's object that names its
// own namespace is created there, as helm install -n creates it (Helm's
// kube client defaults the namespace and does not require it), and not
// refused as kubectl apply -n refuses it; the others get the release's.
func TestHelmChartObjectsKeepTheirNamespace(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"apps/Chart.yaml":  "apiVersion: v2\nname: apps\nversion: 0.1.0\n",
		"apps/values.yaml": "names: [a, b]\n",
		"apps/templates/services.yaml": `{{- range .Values.names }}
apiVersion: v1
kind: Service
metadata: {name: {{ . }}, namespace: argocd}
spec: {ports: [{port: 80}]}
---
{{ end -}}
apiVersion: v1
kind: Service
metadata: {name: own}
spec: {ports: [{port: 80}]}
`,
	})
	for _, ns := range []string{"", "web"} {
		res, err := Load([]string{filepath.Join(root, "apps")}, Options{Namespace: ns})
		if err != nil {
			t.Fatalf("-n %q: %v", ns, err)
		}
		var got []string
		for _, o := range res.Objects {
			got = append(got, o.Obj.GetNamespace()+"/"+o.Obj.GetName())
		}
		release := ns
		if release == "" {
			release = "default"
		}
		want := []string{"argocd/a", "argocd/b", release + "/own"}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("-n %q: objects %v, want %v", ns, got, want)
		}
	}
}
