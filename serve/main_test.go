package serve

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain fails the package when goroutines of serve, gRPC or fsnotify
// outlive the tests: every server must stop everything it started, and
// every test client must be closed.
func TestMain(m *testing.M) {
	if spec := os.Getenv(leanClientsEnv); spec != "" {
		os.Exit(leanClientsMain(spec)) // BenchmarkClientMemory's clients
	}
	code := m.Run()
	if code == 0 {
		if leaked := leakedGoroutines(10 * time.Second); leaked != "" {
			fmt.Fprintf(os.Stderr, "goroutines left running after the tests:\n%s\n", leaked)
			code = 1
		}
	}
	os.Exit(code)
}

// leakedGoroutines waits up to timeout for goroutines that are not the
// test runner's own to end (some, such as gRPC's transport readers, end a
// moment after their connection closes), and returns the stacks of those
// still running.
func leakedGoroutines(timeout time.Duration) string {
	deadline := time.Now().Add(timeout)
	for {
		var leaked []string
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		for _, g := range strings.Split(string(buf), "\n\n") {
			if isOurs(g) {
				leaked = append(leaked, g)
			}
		}
		if len(leaked) == 0 || time.Now().After(deadline) {
			return strings.Join(leaked, "\n\n")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func isOurs(stack string) bool {
	if strings.Contains(stack, "leakedGoroutines") || strings.Contains(stack, "testing.(*M)") {
		return false
	}
	for _, pkg := range []string{"contourc/serve.", "google.golang.org/grpc", "fsnotify", "go-control-plane", "net/http.(*Server)", "net/http.(*persistConn)"} {
		if strings.Contains(stack, pkg) {
			return true
		}
	}
	return false
}
