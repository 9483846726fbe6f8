package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contourc/contourc/translate"
)

// waitTimeout bounds every wait for an event. Nothing waits blindly: tests
// poll for the state they expect and give up only after this long, which
// only a broken server (or a very slow -race run) reaches.
const waitTimeout = 30 * time.Second

// waitFor polls cond until it holds.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testServer is a Server running in the background.
type testServer struct {
	*Server
	logs *syncBuffer
	stop func() error
}

// startServer serves paths on loopback ports chosen by the system, with a
// short hold-off so tests run fast, and stops the server when the test
// ends, failing it if the server does not stop cleanly.
func startServer(t testing.TB, paths []string, configure ...func(*Config)) *testServer {
	t.Helper()
	return startServerHook(t, paths, nil, configure...)
}

// startServerHook is startServer with hook called on the server before it
// runs.
func startServerHook(t testing.TB, paths []string, hook func(*Server), configure ...func(*Config)) *testServer {
	t.Helper()
	logs := &syncBuffer{}
	cfg := Config{
		Paths:       paths,
		XDSAddress:  "127.0.0.1:0",
		HTTPAddress: "127.0.0.1:0",
		Holdoff:     20 * time.Millisecond,
		HoldoffMax:  200 * time.Millisecond,
		Log:         slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Judge:       judgeByCurrentStatus,
	}
	for _, c := range configure {
		c(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if hook != nil {
		hook(s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	var once sync.Once
	var stopErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case stopErr = <-done:
			case <-time.After(waitTimeout):
				stopErr = fmt.Errorf("server did not stop")
			}
		})
		return stopErr
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})
	return &testServer{Server: s, logs: logs, stop: stop}
}

// judgeByCurrentStatus stands in for the CLI's verdict: an object whose
// status has a currentStatus other than "valid" is invalid.
func judgeByCurrentStatus(st translate.ObjectStatus) (bool, string) {
	b, _ := json.Marshal(st.Status)
	var s struct {
		CurrentStatus string `json:"currentStatus"`
		Description   string `json:"description"`
	}
	_ = json.Unmarshal(b, &s)
	if s.CurrentStatus == "" || s.CurrentStatus == "valid" {
		return true, ""
	}
	return false, s.CurrentStatus + ": " + s.Description
}

// waitReady waits for a first configuration to be served.
func (ts *testServer) waitReady(t testing.TB) string {
	t.Helper()
	// The version is published before the reload is counted and reported.
	waitFor(t, "a first configuration", func() bool { return ts.Version() != "" && ts.reloads(t) > 0 })
	return ts.Version()
}

// reloads is how many reloads finished, successful or not.
func (ts *testServer) reloads(t testing.TB) int {
	t.Helper()
	return int(ts.metric(t, "contourc_reloads_total"))
}

// waitReloadsAfter waits until more than n reloads have finished and
// returns the report of the last.
func (ts *testServer) waitReloadsAfter(t testing.TB, n int) reloadReport {
	t.Helper()
	waitFor(t, fmt.Sprintf("reload #%d", n+1), func() bool { return ts.reloads(t) > n })
	return ts.reports.last()
}

var httpClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: waitTimeout}

// get fetches path from the HTTP endpoint.
func (ts *testServer) get(t testing.TB, path string) (int, string) {
	t.Helper()
	resp, err := httpClient.Get("http://" + ts.HTTPAddr().String() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// metric reads one sample from /metrics: name may include labels, as the
// exposition format writes them ({kind="HTTPProxy",valid="false"}).
func (ts *testServer) metric(t testing.TB, name string) float64 {
	t.Helper()
	v, ok := ts.metricOK(t, name)
	if !ok {
		t.Fatalf("no sample %s in /metrics", name)
	}
	return v
}

func (ts *testServer) metricOK(t testing.TB, name string) (float64, bool) {
	t.Helper()
	code, body := ts.get(t, "/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, name+" ") {
			v, err := strconv.ParseFloat(strings.TrimPrefix(line, name+" "), 64)
			if err != nil {
				t.Fatal(err)
			}
			return v, true
		}
	}
	return 0, false
}

// copyExamples copies the repository's examples into a new directory.
func copyExamples(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"kuard.yaml", "kuard-tls-secret.yaml"} {
		b, err := os.ReadFile(filepath.Join("..", "examples", f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, f), string(b))
	}
	return dir
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ingress is a plain-HTTP Ingress for host, routed to the examples' kuard
// Service.
func ingress(name, host string) string {
	return fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: %s
  namespace: default
spec:
  rules:
  - host: %s
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service:
            name: kuard
            port:
              number: 80
`, name, host)
}

// service is a Service and its EndpointSlice with the given addresses.
func service(name string, addrs ...string) string {
	var eps strings.Builder
	for _, a := range addrs {
		fmt.Fprintf(&eps, "- addresses: [%s]\n", a)
	}
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: %[1]s, namespace: default}
spec:
  ports: [{name: http, port: 80, targetPort: 8080}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: %[1]s-x, namespace: default, labels: {kubernetes.io/service-name: %[1]s}}
addressType: IPv4
ports: [{name: http, port: 8080, protocol: TCP}]
endpoints:
%[2]s`, name, eps.String())
}
