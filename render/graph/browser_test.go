package graph

// The page in a real browser: headless Chromium, driven over the DevTools
// protocol. It skips without a Chromium binary, unless
// CONTOURC_REQUIRE_BROWSER=1 (.ci/run sets it), which makes a missing
// browser a failure so that CI cannot pass without running it.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browserPath finds Chromium or Chrome on PATH.
func browserPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CONTOURC_REQUIRE_BROWSER") == "1" {
		t.Fatal("CONTOURC_REQUIRE_BROWSER=1 but no chromium, chromium-browser or google-chrome on PATH (Debian: apt-get install chromium)")
	}
	t.Skip("no chromium, chromium-browser or google-chrome on PATH")
	return ""
}

// browserErrors collects what the page reports as wrong: console.error
// and console.warn calls, uncaught exceptions, and the browser's own
// error and warning entries (a Content-Security-Policy refusal, a failed
// load).
type browserErrors struct {
	mu   sync.Mutex
	list []string
}

func (b *browserErrors) get() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.list)
}

// collect reads the tab's console until ctx ends.
func (b *browserErrors) collect(ctx context.Context) {
	for m, err := range chromedp.Console(ctx) {
		if err != nil {
			return
		}
		switch m.Type {
		case chromedp.ConsoleError, chromedp.ConsoleWarning, chromedp.ConsoleException:
			b.mu.Lock()
			b.list = append(b.list, fmt.Sprintf("%s %s: %s (%s:%d)", m.Source, m.Type, m.Text, m.URL, m.Line))
			b.mu.Unlock()
		}
	}
}

// newBrowser starts headless Chromium for the test, with a tab whose
// console is collected.
func newBrowser(t *testing.T) (context.Context, *browserErrors) {
	path := browserPath(t)
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]),
		chromedp.ExecPath(path),
		// Chromium's sandbox refuses to run as root, as in CI containers.
		chromedp.NoSandbox,
		chromedp.DisableGPU,
	)
	ctx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(ctx)
	t.Cleanup(cancelTab)
	// The browser starts on the first run, which must not have a
	// deadline (it would stop the browser); later steps get one.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	errs := &browserErrors{}
	done := make(chan struct{})
	go func() { defer close(done); errs.collect(ctx) }()
	t.Cleanup(func() { cancelTab(); <-done })
	stepCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancel)
	return stepCtx, errs
}

// The listener catches what the page test relies on it to catch: a
// console error, an exception and a fetch the policy refuses.
func TestBrowserCatchesErrors(t *testing.T) {
	ctx, errs := newBrowser(t)
	page := `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'"></head>` +
		`<body><img src="http://192.0.2.1/x.png"><script>console.error("boom"); setTimeout(function(){ undefinedFunction(); }, 0);</script></body></html>`
	file := filepath.Join(t.TempDir(), "bad.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+file), chromedp.Sleep(300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(errs.get(), "\n")
	for _, want := range []string{"error: boom", "exception: Uncaught ReferenceError: undefinedFunction", "security error: Loading the image 'http://192.0.2.1/x.png' violates the following Content Security Policy"} {
		if !strings.Contains(got, want) {
			t.Errorf("the listener missed %q; it caught:\n%s", want, got)
		}
	}
}

// The golden page of the shop sample (cmd/contourc's graph test writes it)
// loads without an error, draws every node, and its search finds a host
// and a path.
func TestBrowserGraphPage(t *testing.T) {
	file, err := filepath.Abs(filepath.Join("..", "..", "testdata", "graph", "golden", "shop.html"))
	if err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	nodesInFile := len(regexp.MustCompile(`<g class="node `).FindAll(html, -1))
	ctx, errs := newBrowser(t)

	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+file), chromedp.WaitVisible(chromedp.CSS("#graph"))); err != nil {
		t.Fatal(err)
	}
	drawn := evaluate[int](t, ctx, `document.querySelectorAll("#graph g.node").length`)
	width := evaluate[float64](t, ctx, `document.getElementById("vhost/ingress_http/static.example.com").getBBox().width`)
	if drawn != nodesInFile || drawn < 30 {
		t.Errorf("the browser shows %d nodes, the page has %d", drawn, nodesInFile)
	}
	if width <= 0 {
		t.Errorf("the virtual host node is not drawn (width %v)", width)
	}

	for _, c := range []struct {
		query string
		want  []string // node ids that must be hits
		count string
	}{
		{"static.example.com", []string{"vhost/ingress_http/static.example.com", "vhost/ingress_http/static.example.com#0", "vhost/ingress_http/static.example.com#1"}, "3 matches"},
		{"/checkout", []string{"vhost/https/www.example.com/www.example.com#1", "vhost/ingress_http/www.example.com#1"}, "2 matches"},
	} {
		clearSearch(t, ctx)
		// Typed key by key, as a reviewer would: the page searches on
		// each input event.
		if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#search"), c.query)); err != nil {
			t.Fatal(err)
		}
		hits := evaluate[[]string](t, ctx, `Array.from(document.querySelectorAll("#graph g.node.hit")).map(n => n.id)`)
		dimmed := evaluate[int](t, ctx, `document.querySelectorAll("#graph g.node.dim").length`)
		count, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#count")))
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range c.want {
			if !slices.Contains(hits, id) {
				t.Errorf("search %q: %s is not a hit; hits: %v", c.query, id, hits)
			}
		}
		// The route table shows the matching routes, numbered by their
		// index in the virtual host, not by their row.
		if c.query == "/checkout" {
			shown := evaluate[[]int](t, ctx, `Array.from(document.querySelectorAll("#routes details:not(.hidden) li:not(.hidden)")).map(li => li.value)`)
			if !slices.Equal(shown, []int{1, 1}) {
				t.Errorf("search %q: the route table shows routes %v, want #1 of both www.example.com virtual hosts", c.query, shown)
			}
		}
		if count != c.count || dimmed != drawn-len(hits) {
			t.Errorf("search %q: count %q (want %q), %d dimmed of %d with %d hits", c.query, count, c.count, dimmed, drawn, len(hits))
		}
	}

	// Clicking a route focuses it and its neighbours.
	clearSearch(t, ctx)
	evaluate[bool](t, ctx, `document.getElementById("vhost/ingress_http/static.example.com#1").dispatchEvent(new MouseEvent("click", {bubbles: true}))`)
	focused := evaluate[[]string](t, ctx, `Array.from(document.querySelectorAll("#graph g.node.focus")).map(n => n.id)`)
	slices.Sort(focused)
	if len(focused) != 3 || !slices.Contains(focused, "vhost/ingress_http/static.example.com") {
		t.Errorf("clicking route #1 of static.example.com focuses %v, want it, its virtual host and its cluster", focused)
	}
	// Let late reports arrive before looking.
	if err := chromedp.Do(ctx, chromedp.Sleep(200*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if e := errs.get(); len(e) > 0 {
		t.Errorf("the page reported errors:\n%s", strings.Join(e, "\n"))
	}
}

// evaluate runs a JavaScript expression in the page and returns its value.
func evaluate[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// clearSearch empties the search box as deleting its text would.
func clearSearch(t *testing.T, ctx context.Context) {
	t.Helper()
	evaluate[bool](t, ctx, `(function () { var s = document.getElementById("search"); s.value = ""; return s.dispatchEvent(new Event("input")); }())`)
}
