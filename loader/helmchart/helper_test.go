package helmchart_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contourc/contourc/loader/engines"
	"github.com/contourc/contourc/loader/engines/enginestest"
	"github.com/contourc/contourc/loader/helmchart"
)

// TestHelper renders through the contourc-engines program, as contourc
// does: this test package does not link helmrender.
func TestHelper(t *testing.T) {
	bin := enginestest.Build(t, t.TempDir())
	t.Setenv(engines.Env, bin)

	ms, err := helmchart.Render("testdata/web", helmchart.Options{ReleaseName: "shop", Set: []string{"replicas=2"}})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, m := range ms {
		kinds = append(kinds, m.File)
	}
	want := "testdata/web/templates/pdb.yaml testdata/web/charts/backend/templates/service.yaml testdata/web/templates/service.yaml " +
		"testdata/web/templates/deployment.yaml testdata/web/templates/proxy.yaml testdata/web/templates/proxy.yaml testdata/web/templates/tests/test-connection.yaml"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("files %s, want %s", got, want)
	}

	_, err = helmchart.Render("testdata/web", helmchart.Options{Set: []string{"replicas=x"}})
	if err == nil || !strings.Contains(err.Error(), "chart testdata/web (release default/release-name): values don't meet") {
		t.Errorf("error %v, want helm's schema error for the chart", err)
	}
}

func TestHelperMissing(t *testing.T) {
	t.Setenv(engines.Env, filepath.Join(t.TempDir(), "none"))
	_, err := helmchart.Render("testdata/web", helmchart.Options{})
	if err == nil || !strings.Contains(err.Error(), "chart testdata/web (release default/release-name)") {
		t.Errorf("error %v, want one naming the chart", err)
	}
}

func TestNotAChart(t *testing.T) {
	_, err := helmchart.Render(t.TempDir(), helmchart.Options{})
	if err == nil || !strings.Contains(err.Error(), "not a Helm chart (no Chart.yaml)") {
		t.Errorf("error %v", err)
	}
}

// TestBuiltForKubeVersion: the fallback for builds without module
// information is the k8s.io/api of go.mod.
func TestBuiltForKubeVersion(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(mod), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "k8s.io/api" {
			minor := strings.Split(f[1], ".")[1]
			if want := "v1." + minor + ".0"; helmchart.BuiltForKubeVersion() != want || helmchart.FallbackKubeVersion != want {
				t.Errorf("BuiltForKubeVersion() = %s, fallback %s; go.mod has k8s.io/api %s", helmchart.BuiltForKubeVersion(), helmchart.FallbackKubeVersion, f[1])
			}
			return
		}
	}
	t.Fatal("go.mod requires no k8s.io/api")
}
