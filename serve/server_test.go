package serve

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
)

func TestNewErrors(t *testing.T) {
	dir := t.TempDir()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	base := Config{Paths: []string{dir}, XDSAddress: "127.0.0.1:0", HTTPAddress: "127.0.0.1:0"}
	for _, tt := range []struct {
		name   string
		modify func(*Config)
		want   string
	}{
		{"no path", func(c *Config) { c.Paths = nil }, "no path"},
		{"missing path", func(c *Config) { c.Paths = []string{filepath.Join(dir, "nope")} }, "no such file"},
		{"stdin", func(c *Config) { c.Paths = []string{"-"} }, "standard input"},
		{"hold-off", func(c *Config) { c.Holdoff, c.HoldoffMax = time.Second, time.Millisecond }, "shorter than the hold-off"},
		{"config source", func(c *Config) { c.ConfigSource = "rest" }, "invalid xDS config source"},
		{"xDS port in use", func(c *Config) { c.XDSAddress = busy.Addr().String() }, "xDS server"},
		{"HTTP port in use", func(c *Config) { c.HTTPAddress = busy.Addr().String() }, "HTTP server"},
	} {
		cfg := base
		tt.modify(&cfg)
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestRunTwice(t *testing.T) {
	ts := startServer(t, []string{copyExamples(t)})
	ts.waitReady(t)
	if err := ts.Run(context.Background()); err == nil {
		t.Error("a second Run was accepted")
	}
}

func TestHTTPEndpoints(t *testing.T) {
	ts := startServer(t, []string{copyExamples(t)})
	version := ts.waitReady(t)
	if code, body := ts.get(t, "/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz = %d %q", code, body)
	}
	if code, body := ts.get(t, "/readyz"); code != http.StatusOK || !strings.Contains(body, version) {
		t.Errorf("/readyz = %d %q", code, body)
	}
	_, metrics := ts.get(t, "/metrics")
	for _, want := range []string{
		"contourc_reloads_total 1",
		"contourc_reload_failures_total 0",
		"contourc_last_reload_successful 1",
		"contourc_reload_duration_seconds_count 1",
		`contourc_snapshot_info{version="` + version + `"} 1`,
		`contourc_objects{kind="Ingress",valid="true"} 2`,
		`contourc_objects{kind="Secret",valid="true"} 1`,
		`contourc_xds_streams{mode="delta",type="endpoint"} 0`,
		`contourc_xds_nacks_total{type_url="type.googleapis.com/envoy.config.listener.v3.Listener"} 0`,
		"go_goroutines",
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// The examples' two Ingresses, each with its (empty) findings.
	if code, body := ts.get(t, "/debug/status"); code != http.StatusOK || strings.Count(body, `"kind": "Ingress"`) != 2 || strings.Count(body, `"findings": []`) != 2 {
		t.Errorf("/debug/status = %d %q", code, body)
	}
	if code, _ := ts.get(t, "/nope"); code != http.StatusNotFound {
		t.Errorf("/nope = %d", code)
	}
}

// TestStreamMetricsAndRejections counts streams by type and logs a NACK.
func TestStreamMetricsAndRejections(t *testing.T) {
	ts := startServer(t, []string{copyExamples(t)}, func(c *Config) { c.ConfigSource = ConfigSourceContour })
	c := newPerTypeClient(t, ts.XDSAddr().String())
	c.waitFor(t, "every type", (*xdsView).hasAll)
	for _, typ := range typeLabels() {
		if v := ts.metric(t, `contourc_xds_streams{mode="sotw",type="`+typ+`"}`); v != 1 {
			t.Errorf("%s streams = %v", typ, v)
		}
	}
	c.mu.Lock()
	st := c.view.state(servedTypes[0])
	req := st.nonce
	c.mu.Unlock()
	if err := c.nack(servedTypes[0], req, "listener ingress_http: bad"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the rejection", func() bool {
		return ts.metric(t, `contourc_xds_nacks_total{type_url="`+resourcev3.ListenerType+`"}`) == 1
	})
	if !strings.Contains(ts.logs.String(), "listener ingress_http: bad") {
		t.Error("the rejection was not logged")
	}
	c.close()
	waitFor(t, "the streams to close", func() bool {
		return ts.metric(t, `contourc_xds_streams{mode="sotw",type="listener"}`) == 0
	})
}

// Releases after reloads keep their count straight: a burst postpones the
// one release, stopping cancels a pending one, and nothing is left waiting.
func TestReleaseMemoryLater(t *testing.T) {
	s := &Server{}
	for range 3 {
		s.releaseMemoryLater() // a burst: each postpones the last
	}
	done := make(chan struct{})
	go func() {
		s.stopReleases()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("stopReleases did not return")
	}
	// After a release has run, stopping has nothing to cancel.
	s.releaseMemoryLater()
	time.Sleep(releaseDelay + 200*time.Millisecond)
	s.stopReleases()
}
