package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contourc/contourc/loader/engines"
	"github.com/contourc/contourc/loader/engines/enginestest"
)

// TestServeKeepsEnginesHelper: a server keeps the contourc-engines process
// it started for its next reloads, instead of starting one per reload that
// renders a chart. This test package does not link the engines, so charts
// render in the real helper, started through a script that counts starts.
func TestServeKeepsEnginesHelper(t *testing.T) {
	dir := t.TempDir()
	bin := enginestest.Build(t, dir)
	starts := filepath.Join(dir, "starts")
	wrapper := filepath.Join(dir, "engines.sh")
	script := "#!/bin/sh\necho start >> '" + starts + "'\nexec '" + bin + "'\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(engines.Env, wrapper)

	ts := startServer(t, []string{"../loader/helmchart/testdata/web"})
	ts.waitReady(t)
	for range 2 {
		n := ts.reloads(t)
		ts.Reload()
		if rep := ts.waitReloadsAfter(t, n); !rep.OK {
			t.Fatalf("reload failed: %+v", rep)
		}
	}
	b, err := os.ReadFile(starts)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "start"); n != 1 {
		t.Errorf("contourc-engines started %d times for three loads, want once", n)
	}
}
