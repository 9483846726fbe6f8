package main

import (
	"strings"
	"testing"

	// Charts render and Flux Kustomizations generate in the test
	// process, not through contourc-engines (loader/helmchart's and
	// loader/engines' own tests cover the helper).
	"github.com/contourc/contourc/internal/testfs"
	_ "github.com/contourc/contourc/loader/flux/fluxgen"
	_ "github.com/contourc/contourc/loader/helmchart/helmrender"
)

// TestHelmChartPath: a chart directory given as a PATH is rendered as helm
// template renders it, with helm template's flags, and its objects point
// at their templates.
func TestHelmChartPath(t *testing.T) {
	const chart = "../../loader/helmchart/testdata/web"
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"check-defaults", []string{"check", chart}, 0},
		{"check-verbose", []string{"check", "-v", chart}, 0},
		{"check-values", []string{"check", chart, "-n", "shop", "--release-name", "shop", "-f", chart + "/values-prod.yaml", "--set", "backend.enabled=false", "--assume-secret", "shop/web-tls"}, 0},
		{"render", []string{"render", chart, "-o", "yaml", "--set", "service.port=81"}, 0},
		// --set-string is applied after --set: the port is a string, which the schema refuses.
		{"check-set-string-wins", []string{"check", chart, "--set-string", "service.port=8080", "--set", "service.port=81"}, 2},
		{"check-required", []string{"check", chart, "--set", "service.port=null"}, 2},
		{"check-bad-condition", []string{"check", chart, "--set", "backend=off"}, 2},
		{"check-schema", []string{"check", chart, "--set", "replicas=many"}, 2},
		{"check-bad-set", []string{"check", chart, "--set", "novalue"}, 2},
		{"check-walked", []string{"check", "-v", "../../loader/helmchart/testdata"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := runCLI(t, "", tc.args...)
			c.wantExit(t, tc.code)
			golden(t, "helm/"+tc.name, []byte(c.stdout+"--- stderr\n"+timings.ReplaceAllString(c.stderr, "in <took>")))
		})
	}
}

// TestHelmConfig: the config file's helm: section sets helm template's
// flags, value files relative to the file, and the command line wins.
func TestHelmConfig(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{".contourc.yaml": `helm:
  releaseName: cfg
  values: [prod.yaml]
  set: {backend.enabled: "false"}
  setString: {image.tag: "1"}
`, "prod.yaml": "host: cfg.example.com\n"})
	chart := "../../loader/helmchart/testdata/web"
	c := runCLI(t, "", "check", chart, "--config", dir+"/.contourc.yaml")
	c.wantExit(t, 0)
	for _, want := range []string{"default/cfg-web ", "(via chart " + chart + ", release default/cfg)"} {
		if !strings.Contains(c.stdout, want) {
			t.Errorf("check lacks %q:\n%s", want, c.stdout)
		}
	}
	c = runCLI(t, "", "render", chart, "-o", "yaml", "--config", dir+"/.contourc.yaml", "--release-name", "cli")
	c.wantExit(t, 0)
	if !strings.Contains(c.stdout, "cfg.example.com") || !strings.Contains(c.stdout, "cli-web") || strings.Contains(c.stdout, "cli-backend") {
		t.Errorf("render did not take the file's values and the command line's release name:\n%s", c.stdout)
	}
}
