//go:build unix

package loader

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 23 item 2 and two bits of item 9: the walk opens regular files
// only, never blocks in open(2), and follows linked directories once.

func writeService(t *testing.T, path, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	svc := "apiVersion: v1\nkind: Service\nmetadata: {name: " + name + ", namespace: default}\nspec: {ports: [{port: 80}]}\n"
	if err := os.WriteFile(path, []byte(svc), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// loadWithin runs Load, failing the test rather than hanging when it does
// not return: opening a named pipe without O_NONBLOCK blocks for good.
func loadWithin(t *testing.T, paths []string, opts Options) (*Result, error) {
	t.Helper()
	type out struct {
		res *Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := Load(paths, opts)
		done <- out{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-time.After(20 * time.Second):
		t.Fatalf("Load(%q) did not return: blocked opening a file?", paths)
		return nil, nil
	}
}

func objectNames(res *Result) []string {
	var names []string
	for _, o := range res.Objects {
		names = append(names, o.Source.File+":"+o.Kind)
	}
	return names
}

func TestWalkRefusesFilesThatAreNotRegular(t *testing.T) {
	dir := t.TempDir()
	writeService(t, filepath.Join(dir, "a.yaml"), "a")
	fifo := filepath.Join(dir, "sub", "pipe.yaml")
	if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, fifo)
	// A pipe that is no manifest is left alone, like any such file.
	mkfifo(t, filepath.Join(dir, "sub", "notes.fifo"))
	_, err := loadWithin(t, []string{dir}, Options{})
	want := fifo + ": not a regular file (a named pipe)"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "notes.fifo") {
		t.Fatalf("error %v, want one naming %q", err, want)
	}
	// A link to a pipe is no regular file either.
	link := t.TempDir()
	if err := os.Symlink(fifo, filepath.Join(link, "linked.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, err := loadWithin(t, []string{link}, Options{}); err == nil || !strings.Contains(err.Error(), "linked.yaml: not a regular file (a named pipe)") {
		t.Errorf("a link to a pipe: error %v", err)
	}
}

func TestNamedFilesThatAreNotRegular(t *testing.T) {
	if _, err := loadWithin(t, []string{"/dev/zero"}, Options{}); err == nil ||
		err.Error() != "/dev/zero: not a regular file (a character device)" {
		t.Errorf("/dev/zero: error %v", err)
	}
	// A named pipe given by name is read, as kubectl reads /dev/stdin or
	// <(...): until its writer closes it.
	fifo := filepath.Join(t.TempDir(), "pipe")
	mkfifo(t, fifo)
	// O_RDWR opens a pipe without waiting for a reader: the writer is
	// there before Load opens it, as a shell's is for <(...).
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer w.Close()
		time.Sleep(50 * time.Millisecond) // the reader waits for the data
		w.WriteString("apiVersion: v1\nkind: Service\nmetadata: {name: piped, namespace: default}\nspec: {ports: [{port: 80}]}\n")
	}()
	// Without NamedPipes (serve) it is refused, without blocking.
	if _, err := loadWithin(t, []string{fifo}, Options{}); err == nil || !strings.Contains(err.Error(), "not a regular file (a named pipe)") {
		t.Errorf("a named pipe without NamedPipes: %v", err)
	}
	res, err := loadWithin(t, []string{fifo}, Options{NamedPipes: true})
	if err != nil {
		t.Fatalf("a named pipe given by name: %v", err)
	}
	if got := objectNames(res); len(got) != 1 || got[0] != fifo+":Service" {
		t.Errorf("objects from the pipe: %q", got)
	}
	// Without a writer it is read as empty rather than waited for.
	alone := filepath.Join(t.TempDir(), "alone")
	mkfifo(t, alone)
	if res, err := loadWithin(t, []string{alone}, Options{NamedPipes: true}); err != nil || len(res.Objects) != 0 {
		t.Errorf("a pipe without a writer: %v, %v", res, err)
	}
}

// A file replaced by a pipe between the walk and the open is refused by
// the open, without blocking in it.
func TestOpenChecksTheOpenedFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "swapped.yaml")
	mkfifo(t, fifo)
	done := make(chan error, 1)
	go func() { _, _, err := readInput(fifo, false, Options{}); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file (a named pipe)") {
			t.Errorf("error %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("readInput blocked opening a named pipe")
	}
}

func TestWalkFollowsLinkedDirectories(t *testing.T) {
	root := t.TempDir()
	shared := t.TempDir()
	writeService(t, filepath.Join(root, "own.yaml"), "own")
	writeService(t, filepath.Join(shared, "base", "svc.yaml"), "shared")
	for link, target := range map[string]string{
		"env":          filepath.Join(shared, "base"), // a linked directory: followed
		"env2":         filepath.Join(shared, "base"), // the same again: read once
		"loop":         root,                          // an ancestor: no loop
		"deep/up":      filepath.Join(root, "deep"),   // itself
		".hidden-link": filepath.Join(shared, "base"), // hidden: skipped
	} {
		path := filepath.Join(root, link)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}
	res, err := loadWithin(t, []string{root}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "env", "svc.yaml") + ":Service", filepath.Join(root, "own.yaml") + ":Service"}
	got := objectNames(res)
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("objects %q, want %q", got, want)
	}
	// A dangling link named like a manifest is an error, as the file it
	// names cannot be read; one named otherwise is no manifest.
	if err := os.Symlink(filepath.Join(root, "gone"), filepath.Join(root, "dangling.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "gone"), filepath.Join(root, "dangling.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := loadWithin(t, []string{root}, Options{}); err == nil || err.Error() != filepath.Join(root, "dangling.yaml")+": no such file or directory" {
		t.Errorf("dangling link: %v", err)
	}
}
