package serve

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// /debug/graph is contourc graph's page for what is served: the same
// nodes, coloured by status, with sources as text rather than links.
func TestDebugGraph(t *testing.T) {
	dir := filepath.Join("..", "testdata", "graph", "mixed")
	ts := startServer(t, []string{dir})
	ts.waitReady(t)
	code, page := ts.get(t, "/debug/graph")
	if code != 200 {
		t.Fatalf("/debug/graph = %d %s", code, page)
	}
	var ids []string
	for _, m := range regexp.MustCompile(`<g class="node [^"]*" id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		ids = append(ids, m[1])
	}
	for _, want := range []string{
		"object/HTTPProxy/web/root", "object/HTTPProxy/api/api", "object/HTTPProxy/api/lonely",
		"listener/ingress_http", "vhost/ingress_http/app.example.com", "vhost/ingress_http/app.example.com#3",
		"cluster/api/api/8080/da39a3ee5e", "service/web/cdn",
	} {
		if !slices.Contains(ids, want) {
			t.Errorf("no node %s among %v", want, ids)
		}
	}
	for _, want := range []string{
		`<title>contourc serve: version `,
		`id="object/HTTPProxy/web/broken" data-kind="object" data-status="invalid"`,
		`id="service/web/cdn" data-kind="service" data-status="warning"`,
		filepath.Join(dir, "proxies.yaml") + ":33",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("/debug/graph does not contain %q", want)
		}
	}
	if strings.Contains(page, "<a href=") {
		t.Error("/debug/graph links to files the browser cannot open")
	}
}
