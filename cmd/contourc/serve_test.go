package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestServeUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name   string
		args   []string
		stderr string
		help   bool // a usage error points at --help
	}{
		{"no path", []string{"serve"}, "serve needs at least one PATH to watch: a file or a directory\n", true},
		{"config source", []string{"serve", "--xds-config-source", "rest", dir}, `invalid xDS config source "rest"`, true},
		{"two TLS files of three", []string{"serve", "--contour-cafile", "ca", "--contour-key-file", "k", dir}, "give all three or none", true},
		{"log format", []string{"serve", "--log-format", "xml", dir}, `invalid --log-format "xml"`, true},
		{"hold-off", []string{"serve", "--holdoff", "1s", "--holdoff-max", "10ms", dir}, "want 0 < holdoff <= holdoff-max", true},
		{"port", []string{"serve", "--xds-port", "70000", dir}, "--xds-port 70000", true},
		{"reload timeout", []string{"serve", "--reload-timeout", "0s", dir}, "--reload-timeout 0s: want a duration above 0", true},
		{"truncation grace", []string{"serve", "--truncation-grace", "-1s", dir}, "--truncation-grace -1s: want 0 or more", true},
		{"gateway", []string{"serve", "--gateway", "gw", dir}, `--gateway "gw": want NAMESPACE/NAME`, true},
		{"stdin", []string{"serve", "--xds-port", "0", "--http-port", "0", "-"}, "serve cannot watch standard input", true},
		{"missing path", []string{"serve", "--xds-port", "0", "--http-port", "0", filepath.Join(dir, "nope")}, "no such file", false},
		{"missing certificate", []string{"serve", "--xds-port", "0", "--http-port", "0",
			"--contour-cafile", "ca", "--contour-cert-file", "crt", "--contour-key-file", "key", dir}, "xDS TLS", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, "", tt.args...)
			got.wantExit(t, exitFailure)
			if !strings.Contains(got.stderr, tt.stderr) {
				t.Errorf("stderr does not contain %q:\n%s", tt.stderr, got.stderr)
			}
			if help := strings.Contains(got.stderr, "--help' for usage"); help != tt.help {
				t.Errorf("points at --help: %v, want %v\n%s", help, tt.help, got.stderr)
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer the server's logger and the test share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// logged returns the first attribute key of a JSON log record whose msg is
// msg, once the server has logged it.
func logged(t *testing.T, logs *lockedBuffer, msg, key string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		sc := bufio.NewScanner(strings.NewReader(logs.String()))
		for sc.Scan() {
			var rec map[string]any
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec["msg"] == msg {
				if v, ok := rec[key].(string); ok {
					return v
				}
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no %q in the log:\n%s", msg, logs)
	return ""
}

var plainHTTP = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := plainHTTP.Get(url)
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

// TestServeCommand runs `contourc serve` in memory, as main would, and
// checks that it serves what render and check print for the same input
// and flags, reloads on SIGHUP and stops on SIGTERM.
func TestServeCommand(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"kuard.yaml", "kuard-tls-secret.yaml"} {
		b, err := os.ReadFile(filepath.Join(examplesDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	logs := &lockedBuffer{}
	var out bytes.Buffer
	exit := make(chan int, 1)
	go func() {
		exit <- run([]string{"serve", "--xds-port", "0", "--http-port", "0", "--log-format", "json",
			"--xds-config-source", "contour", "--ingress-class-name", "contour", dir},
			IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: logs})
	}()
	base := "http://" + logged(t, logs, "serving health, metrics and debug endpoints", "address")
	logged(t, logs, "serving a new configuration", "version")

	// /debug/status is check -o json.
	check := runCLI(t, "", "check", "-o", "json", "--ingress-class-name", "contour", dir)
	if _, status := httpGet(t, base+"/debug/status"); status != check.stdout {
		t.Errorf("/debug/status:\n%s\ncheck -o json:\n%s", status, check.stdout)
	}
	// /debug/xds is render -o json, private keys redacted.
	render := runCLI(t, "", "render", "-o", "json", "--ingress-class-name", "contour", dir)
	render.wantExit(t, exitOK)
	_, xds := httpGet(t, base+"/debug/xds")
	if strings.Contains(xds, "PRIVATE KEY") || strings.Contains(xds, "LS0tLS1CRUdJTiBQUklWQVRF") {
		t.Error("/debug/xds shows a private key")
	}
	if want, got := redactKeys(t, render.stdout), decodeJSON(t, xds); !reflect.DeepEqual(want, got) {
		t.Errorf("/debug/xds differs from render -o json:\n%s", xds)
	}

	reloads := func() string {
		_, m := httpGet(t, base+"/metrics")
		for _, l := range strings.Split(m, "\n") {
			if v, ok := strings.CutPrefix(l, "contourc_reloads_total "); ok {
				return v
			}
		}
		return ""
	}
	if r := reloads(); r != "1" {
		t.Fatalf("contourc_reloads_total = %q before SIGHUP", r)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for reloads() != "2" && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if r := reloads(); r != "2" {
		t.Errorf("contourc_reloads_total = %q after SIGHUP", r)
	}

	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exit:
		if code != exitOK {
			t.Errorf("exit %d\n%s", code, logs)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop on SIGTERM")
	}
	if out.Len() != 0 {
		t.Errorf("serve wrote on stdout: %q", out.String())
	}
	if !strings.Contains(logs.String(), `"msg":"shutting down"`) {
		t.Errorf("no shutdown in the log:\n%s", logs)
	}
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// redactKeys decodes render's JSON and replaces each secret's private key
// as /debug/xds does.
func redactKeys(t *testing.T, s string) any {
	t.Helper()
	v := decodeJSON(t, s).(map[string]any)
	for _, sec := range v["type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret"].([]any) {
		if tc, ok := sec.(map[string]any)["tls_certificate"].(map[string]any); ok {
			tc["private_key"] = map[string]any{"inline_string": "[REDACTED]"}
		}
	}
	return v
}
