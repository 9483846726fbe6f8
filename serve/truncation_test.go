package serve

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
)

// A file truncated, then written again within the grace period (what
// `kubectl get ... > file` does), is read whole: no configuration without
// its objects is ever pushed.
func TestTruncateThenWrite(t *testing.T) {
	dir := copyExamples(t)
	site := filepath.Join(dir, "site.yaml")
	writeFile(t, site, ingress("site", "site.example"))
	ts := startServer(t, []string{dir}, func(c *Config) { c.TruncationGrace = 2 * time.Second })
	ts.waitReady(t)
	c := newADSClient(t, ts.XDSAddr().String())
	c.waitFor(t, "site.example", func(v *xdsView) bool { return v.hasDomain("site.example") })

	if err := os.Truncate(site, 0); err != nil {
		t.Fatal(err)
	}
	// The writer's pause between truncating and writing, as in
	// `: > file; sleep 0.3; cat new > file`; well within the grace.
	time.Sleep(300 * time.Millisecond)
	writeFile(t, site, ingress("site", "site.example")+"---\n"+ingress("site2", "site2.example"))
	c.waitFor(t, "site2.example", func(v *xdsView) bool { return v.hasDomain("site2.example") })
	c.inspect(func(v *xdsView) {
		for i, r := range v.log {
			if r.typeURL == resourcev3.RouteType && slices.Contains(r.names, "ingress_http") && !slices.Contains(r.domains, "site.example") {
				t.Errorf("response %d (%s version %s, %v) was pushed without site.example: %v", i, typeLabel(r.typeURL), r.version, r.names, r.domains)
			}
		}
	})
}

// A file emptied for good is believed once the grace period is over.
func TestEmptiedFileBelievedAfterGrace(t *testing.T) {
	dir := copyExamples(t)
	site := filepath.Join(dir, "site.yaml")
	writeFile(t, site, ingress("site", "site.example"))
	ts := startServer(t, []string{dir}, func(c *Config) { c.TruncationGrace = 100 * time.Millisecond })
	ts.waitReady(t)
	c := newADSClient(t, ts.XDSAddr().String())
	c.waitFor(t, "site.example", func(v *xdsView) bool { return v.hasDomain("site.example") })
	if err := os.Truncate(site, 0); err != nil {
		t.Fatal(err)
	}
	c.waitFor(t, "site.example to go", func(v *xdsView) bool {
		return !v.hasDomain("site.example") && len(v.state(resourcev3.RouteType).resources) > 0
	})
	logs := ts.logs.String()
	if !strings.Contains(logs, "holding the reload") || !strings.Contains(logs, "reading it as it is") {
		t.Errorf("the hold and its end were not logged")
	}
}

// What looks half written: a file that gave objects and is now empty, or
// YAML ending within a line; not a file that never held objects, JSON cut
// short (it does not parse), or a file ending with a line.
func TestLooksCut(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"emptied.yaml":  ingress("a", "a.example"),
		"cut.yaml":      ingress("b", "b.example"),
		"whole.yaml":    ingress("c", "c.example"),
		"comments.yaml": "# nothing here\n",
		"cut.json":      `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "j", "namespace": "default"}, "spec": {"ports": [{"port": 80}]}}`,
	}
	for name, text := range files {
		writeFile(t, filepath.Join(dir, name), text)
	}
	// A grace longer than the test: the reload the writes below set off
	// stays held, and the decode cache keeps what the files gave before.
	ts := startServer(t, []string{dir}, func(c *Config) { c.TruncationGrace = time.Hour })
	ts.waitReady(t)
	writeFile(t, filepath.Join(dir, "emptied.yaml"), "")
	writeFile(t, filepath.Join(dir, "cut.yaml"), files["cut.yaml"][:40])
	writeFile(t, filepath.Join(dir, "comments.yaml"), "")
	writeFile(t, filepath.Join(dir, "cut.json"), `{"apiVersion": "v1"`)
	for name, want := range map[string]string{
		"emptied.yaml":  "emptied",
		"cut.yaml":      "ends within a line",
		"whole.yaml":    "",
		"comments.yaml": "",
		"cut.json":      "",
		"absent.yaml":   "",
	} {
		if got := ts.looksCut(filepath.Join(dir, name)); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
