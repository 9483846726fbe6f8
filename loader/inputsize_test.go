package loader

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/contourc/contourc/loader/walk"
)

// InputSize adds up the files Load would read: manifests found in a
// directory (not others, nor hidden ones), files named, each once.
func TestInputSize(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, size int) string {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("a.yaml", 100)
	write("sub/b.json", 20)
	write("notes.txt", 1000)
	write(".hidden/c.yaml", 5000)
	named := write("other/named.txt", 3)
	if got := walk.InputSize([]string{dir}); got != 120 {
		t.Errorf("directory: %d bytes, want 120", got)
	}
	if got := walk.InputSize([]string{dir, named, filepath.Join(dir, "a.yaml"), "-", filepath.Join(dir, "missing.yaml")}); got != 123 {
		t.Errorf("directory, a file named, one named twice, stdin and a missing file: %d bytes, want 123", got)
	}
}
