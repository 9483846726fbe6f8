package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	t.Run("creates", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "envoy.yaml")
		if err := writeFileAtomic(path, []byte("new\n"), privatePerm); err != nil {
			t.Fatal(err)
		}
		// New files hold private keys: owner only.
		wantFile(t, path, "new\n", 0o600)
		wantOnly(t, dir, 1)
	})

	t.Run("replaces and keeps permissions", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "envoy.yaml")
		if err := os.WriteFile(path, []byte("old\n"), 0o640); err != nil {
			t.Fatal(err)
		}
		if err := writeFileAtomic(path, []byte("new\n"), privatePerm); err != nil {
			t.Fatal(err)
		}
		wantFile(t, path, "new\n", 0o640)
		wantOnly(t, dir, 1)
	})

	t.Run("missing directory", func(t *testing.T) {
		dir := t.TempDir()
		if err := writeFileAtomic(filepath.Join(dir, "nope", "envoy.yaml"), []byte("x"), privatePerm); err == nil {
			t.Fatal("no error writing into a missing directory")
		}
		wantOnly(t, dir, 0)
	})

	t.Run("rename fails", func(t *testing.T) {
		// A non-empty directory where the file should go makes the final
		// rename fail after the data was written.
		dir := t.TempDir()
		path := filepath.Join(dir, "envoy.yaml")
		if err := os.MkdirAll(filepath.Join(path, "keep"), 0o755); err != nil {
			t.Fatal(err)
		}
		err := writeFileAtomic(path, []byte("x"), privatePerm)
		if err == nil {
			t.Fatal("no error replacing a directory")
		}
		if !strings.HasPrefix(err.Error(), "write "+path+": ") {
			t.Errorf("error %q does not name %s", err, path)
		}
		wantOnly(t, dir, 1)
	})
}

func wantFile(t *testing.T, path, content string, perm os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != content {
		t.Errorf("%s = %q, want %q", path, b, content)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != perm {
		t.Errorf("%s has mode %v, want %v", path, fi.Mode().Perm(), perm)
	}
}

// wantOnly checks that dir holds n entries: no temporary file was left.
func wantOnly(t *testing.T, dir string, n int) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != n {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %v, want %d entries", dir, names, n)
	}
}
