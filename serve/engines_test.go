package serve

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contourc/contourc/loader/engines"
)

// TestServeKeepsEnginesHelper: a server keeps the contourc-engines process
// it started for its next reloads, instead of starting one per reload that
// renders a chart. This test package does not link the engines, so charts
// render in the real helper, started through a script that counts starts.
func TestServeKeepsEnginesHelper(t *testing.T) {
	if testing.Short() {
		t.Skip("builds contourc-engines")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, engines.Name)
	build := exec.Command("go", "build", "-o", bin, "github.com/contourc/contourc/cmd/contourc-engines")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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
