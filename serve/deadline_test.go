package serve

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/contourc/contourc/loader"
)

// blockingLoader stands in for loader.Load: once armed, every call blocks
// until the test ends, as a reload opening a FIFO does.
type blockingLoader struct {
	armed   atomic.Bool
	calls   atomic.Int32 // calls made while armed
	blocked chan struct{}
	release chan struct{}
	once    sync.Once
}

func newBlockingLoader(t *testing.T) *blockingLoader {
	l := &blockingLoader{blocked: make(chan struct{}, 16), release: make(chan struct{})}
	// Run once the server has stopped (stopping must not need it), so
	// that the blocked reloads return before the leak check.
	t.Cleanup(l.unblock)
	return l
}

func (l *blockingLoader) load(paths []string, opts loader.Options) (*loader.Result, error) {
	if l.armed.Load() {
		l.calls.Add(1)
		l.blocked <- struct{}{}
		<-l.release
	}
	return loader.Load(paths, opts)
}

func (l *blockingLoader) unblock() { l.once.Do(func() { close(l.release) }) }

// A reload that blocks is abandoned at its deadline: counted as failed,
// /readyz says why with a 503, and the next reload, with the blockage gone,
// recovers. Only a few blocked reloads are left behind.
func TestReloadDeadline(t *testing.T) {
	l := newBlockingLoader(t)
	ts := startServerHook(t, []string{copyExamples(t)}, func(s *Server) { s.load = l.load },
		func(c *Config) { c.ReloadTimeout = 100 * time.Millisecond })
	version := ts.waitReady(t)
	l.armed.Store(true)
	n := ts.reloads(t)
	ts.Reload()
	rep := ts.waitReloadsAfter(t, n)
	if rep.OK || !rep.Abandoned || !strings.Contains(strings.Join(rep.Errors, "\n"), "not finished after 100ms") {
		t.Fatalf("the blocked reload's report: %+v", rep)
	}
	if v := ts.metric(t, "contourc_reload_failures_total"); v != 1 {
		t.Errorf("contourc_reload_failures_total = %v, want 1", v)
	}
	code, body := ts.get(t, "/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "not finished after 100ms") || !strings.Contains(body, version) {
		t.Errorf("/readyz after an abandoned reload = %d %q", code, body)
	}
	// Blocked reloads pile up only to maxAbandoned; the next fails at once
	// without reading anything.
	for i := 1; i < maxAbandoned; i++ {
		n = ts.reloads(t)
		ts.Reload()
		ts.waitReloadsAfter(t, n)
	}
	n = ts.reloads(t)
	ts.Reload()
	if rep := ts.waitReloadsAfter(t, n); !rep.Abandoned || !strings.Contains(strings.Join(rep.Errors, "\n"), "still blocked") {
		t.Errorf("a reload with %d blocked ones behind it: %+v", maxAbandoned, rep)
	}
	if got := l.calls.Load(); got != maxAbandoned {
		t.Errorf("%d reloads started reading, want %d", got, maxAbandoned)
	}
	// The blockage gone, reloads work again.
	l.armed.Store(false)
	l.unblock()
	waitFor(t, "the blocked reloads to return", func() bool { return ts.building.Load() == 0 })
	n = ts.reloads(t)
	ts.Reload()
	if rep := ts.waitReloadsAfter(t, n); !rep.OK {
		t.Fatalf("the reload after the blockage: %+v", rep)
	}
	if code, body := ts.get(t, "/readyz"); code != http.StatusOK {
		t.Errorf("/readyz after recovering = %d %q", code, body)
	}
}

// Stopping does not wait for a reload that blocks, however long its
// deadline.
func TestStopDuringBlockedReload(t *testing.T) {
	l := newBlockingLoader(t)
	ts := startServerHook(t, []string{copyExamples(t)}, func(s *Server) { s.load = l.load },
		func(c *Config) { c.ReloadTimeout = time.Hour })
	ts.waitReady(t)
	l.armed.Store(true)
	ts.Reload()
	<-l.blocked
	if err := ts.stop(); err != nil {
		t.Fatalf("stopping with a reload blocked: %v", err)
	}
}

// The same with a real FIFO named like a manifest, given as a path: the
// loader blocks opening it (unless it refuses files that are not regular),
// and serve must still stop.
func TestStopWithFIFO(t *testing.T) {
	dir := copyExamples(t)
	fifo := filepath.Join(t.TempDir(), "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Opening the FIFO for writing, once the test is done, lets a reader
	// blocked in open(2) go on (and read nothing).
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
			f.Close()
		}
	})
	ts := startServer(t, []string{dir, fifo}, func(c *Config) { c.ReloadTimeout = 200 * time.Millisecond })
	waitFor(t, "the first reload to end", func() bool { return ts.reloads(t) > 0 })
	if rep := ts.reports.last(); rep.OK {
		t.Fatalf("a reload reading a FIFO succeeded: %+v", rep)
	}
	if code, _ := ts.get(t, "/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz = %d, want 503", code)
	}
	if err := ts.stop(); err != nil {
		t.Fatalf("stopping with a FIFO in the paths: %v", err)
	}
}
