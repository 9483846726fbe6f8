package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contourc/contourc/internal/release"
)

// TestRun runs the command as make dist does, on stand-in binaries.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	p := release.Platform{OS: "linux", Arch: "arm64"}
	os.MkdirAll(p.BuildDir(dir), 0o755)
	for _, name := range p.Binaries() {
		os.WriteFile(filepath.Join(p.BuildDir(dir), name), []byte("bin"), 0o755)
	}
	if err := run("v1.0.0", dir, "../../../plugins/contourc.yaml", "../../../README.md", []string{"linux/arm64"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"contourc_v1.0.0_linux_arm64.tar.gz", "contourc_v1.0.0_checksums.txt", "contourc.krew.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if err := run("v1.0.0", dir, "../../../plugins/contourc.yaml", "../../../README.md", []string{"linux"}); err == nil || !strings.Contains(err.Error(), "want OS/ARCH") {
		t.Errorf("a platform without an architecture: %v", err)
	}
	if err := run("", dir, "", "", nil); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Errorf("no version: %v", err)
	}
}
