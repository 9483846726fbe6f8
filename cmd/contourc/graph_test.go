package main

// End-to-end tests of `contourc graph`: DOT and HTML goldens under
// testdata/graph/golden (regenerate with `go test ./cmd/contourc -run
// Graph -update`, then review), byte-identical whatever the file order.

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var graphData = filepath.Join(repoRoot, "testdata", "graph")

// graphCases are samples with includes, an Ingress, a Gateway and its
// HTTPRoute, and objects that are invalid, orphaned or without endpoints.
var graphCases = map[string]string{
	"shop":    filepath.Join(routeTestData, "shop"),
	"gateway": filepath.Join(routeTestData, "gateway"),
	"mixed":   filepath.Join(graphData, "mixed"),
}

func TestGraphGolden(t *testing.T) {
	for name, dir := range graphCases {
		for _, format := range []string{"dot", "html"} {
			t.Run(name+"/"+format, func(t *testing.T) {
				got := runCLI(t, "", "graph", "-o", format, dir)
				got.wantExit(t, exitOK)
				goldenFile(t, filepath.Join(graphData, "golden", name+"."+format), []byte(got.stdout))
			})
		}
	}
}

func TestGraphFileOrder(t *testing.T) {
	dir := filepath.Join(graphData, "mixed")
	a, b := filepath.Join(dir, "proxies.yaml"), filepath.Join(dir, "services.yaml")
	for _, format := range []string{"dot", "html"} {
		one := runCLI(t, "", "graph", "-o", format, a, b)
		two := runCLI(t, "", "graph", "-o", format, b, a)
		one.wantExit(t, exitOK)
		two.wantExit(t, exitOK)
		if one.stdout != two.stdout {
			t.Errorf("%s: the output depends on the order of the files", format)
		}
	}
}

// The page loads nothing: no external script, style, image or font, and a
// Content-Security-Policy that would refuse one.
func TestGraphHTMLSelfContained(t *testing.T) {
	got := runCLI(t, "", "graph", "-o", "html", "--link-base", "https://example.com/repo/blob/main/", graphCases["mixed"])
	got.wantExit(t, exitOK)
	page := got.stdout
	if !strings.Contains(page, `content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"`) {
		t.Error("no Content-Security-Policy forbidding fetches")
	}
	if m := regexp.MustCompile(`(?i)<(link|img|iframe|object|embed)\b|\bsrc=|@import|url\((?:[^#)]|$)`).FindString(page); m != "" {
		t.Errorf("the page refers to something outside it: %q", m)
	}
	for _, want := range []string{
		`<a href="https://example.com/repo/blob/main/` + filepath.ToSlash(filepath.Join(graphCases["mixed"], "proxies.yaml")) + `#L4"`,
		`data-status="invalid"`, `data-status="warning"`,
		// Envoy's index, not the row's position.
		`<li value="3" class="valid" data-node="vhost/ingress_http/app.example.com#3"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not contain %q", want)
		}
	}
}

func TestGraphUsage(t *testing.T) {
	got := runCLI(t, "", "graph", "-o", "svg", graphCases["mixed"])
	got.wantExit(t, exitFailure)
	if !strings.Contains(got.stderr, `invalid --output-format "svg": want dot or html`) {
		t.Errorf("stderr:\n%s", got.stderr)
	}
	none := runCLI(t, "", "graph")
	none.wantExit(t, exitFailure)
	if !strings.Contains(none.stderr, "graph needs at least one PATH") {
		t.Errorf("stderr:\n%s", none.stderr)
	}
}
