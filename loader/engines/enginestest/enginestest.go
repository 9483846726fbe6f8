// Package enginestest builds the real contourc-engines program for tests
// of packages that do not link the engines, so that they go through the
// helper process as contourc does.
package enginestest

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/contourc/contourc/loader/engines"
)

// Build builds contourc-engines into dir and returns its path; it skips
// the test under -short, since building takes seconds.
func Build(t testing.TB, dir string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds contourc-engines")
	}
	bin := filepath.Join(dir, engines.Name)
	build := exec.Command("go", "build", "-o", bin, "github.com/contourc/contourc/cmd/contourc-engines")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
