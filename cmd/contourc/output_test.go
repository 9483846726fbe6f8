package main

import (
	"errors"
	"io"
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

// TestWriteOutStreamsOnlyWhereItCanTakeBack: a regular file written at its
// end (> and >>) gets the streaming writer, and a failed stream is cut back
// to what the file held; anything else gets the all-or-nothing writer.
func TestWriteOutStreamsOnlyWhereItCanTakeBack(t *testing.T) {
	emit := func(w io.Writer) error { _, err := io.WriteString(w, "whole\n"); return err }
	stream := func(w io.Writer) error { _, err := io.WriteString(w, "streamed\n"); return err }
	failing := func(w io.Writer) error {
		io.WriteString(w, "half of it")
		return errors.New("resource invalid")
	}
	open := func(t *testing.T, previous string, flag int) *os.File {
		t.Helper()
		path := filepath.Join(t.TempDir(), "out")
		if err := os.WriteFile(path, []byte(previous), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|flag, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	content := func(t *testing.T, f *os.File) string {
		t.Helper()
		b, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	// Each file holds "kept\n" and is opened with flag (and moved to its
	// end when atEnd) before writeOut runs with stream.
	for _, tc := range []struct {
		name    string
		flag    int
		atEnd   bool
		stream  func(io.Writer) error
		want    string // the file afterwards
		wantErr bool
	}{
		{"> (truncated)", os.O_TRUNC, false, stream, "streamed\n", false},
		{"> (truncated), the stream failing", os.O_TRUNC, false, failing, "", true},
		{"written from its end, the stream failing", 0, true, failing, "kept\n", true},
		{">> (appended): offset 0, so all or nothing", os.O_APPEND, false, failing, "kept\nwhole\n", false},
		{"not at its end: writing would overwrite", 0, false, failing, "whole\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := open(t, "kept\n", tc.flag)
			if tc.atEnd {
				if _, err := f.Seek(0, io.SeekEnd); err != nil {
					t.Fatal(err)
				}
			}
			if err := writeOut(f, emit, tc.stream); (err != nil) != tc.wantErr {
				t.Errorf("writeOut returned %v, want an error: %v", err, tc.wantErr)
			}
			if got := content(t, f); got != tc.want {
				t.Errorf("file holds %q, want %q", got, tc.want)
			}
			// Whatever comes next lands where the output would have.
			io.WriteString(f, "next\n")
			if got := content(t, f); got != tc.want+"next\n" {
				t.Errorf("a later write left %q, want %q", got, tc.want+"next\n")
			}
		})
	}

	t.Run("pipe", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if err := writeOut(w, emit, failing); err != nil {
			t.Fatal(err)
		}
		w.Close()
		if got, _ := io.ReadAll(r); string(got) != "whole\n" {
			t.Errorf("pipe got %q, want the all-or-nothing writer's output", got)
		}
	})

}

// runCLIOut runs contourc with standard output going to out, as the shell
// would redirect it; it returns the exit code and stderr.
func runCLIOut(t *testing.T, out *os.File, args ...string) (int, string) {
	t.Helper()
	var errOut strings.Builder
	code := run(args, IOStreams{In: strings.NewReader(""), Out: out, ErrOut: &errOut})
	return code, errOut.String()
}

// TestRenderToStdoutFileIsPrivate: `render > envoy.yaml` leaves a file the
// shell made 0644; when the output holds private keys it becomes 0600
// before anything is written, as --output's file is. Other output, and
// standard output that is not a regular file, are left alone.
func TestRenderToStdoutFileIsPrivate(t *testing.T) {
	withKeys := filepath.Join(repoRoot, "examples")
	noKeys := filepath.Join(diffCasesDir, "route-weight", "old")
	shellFile := func(t *testing.T, perm os.FileMode) *os.File {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(t.TempDir(), "envoy.yaml"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		if err := f.Chmod(perm); err != nil { // whatever the umask
			t.Fatal(err)
		}
		return f
	}
	perm := func(t *testing.T, f *os.File) os.FileMode {
		t.Helper()
		fi, err := os.Stat(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	for _, tc := range []struct {
		name   string
		args   []string
		before os.FileMode
		want   os.FileMode
	}{
		{"yaml with keys", []string{"render", withKeys}, 0o644, 0o600},
		{"json with keys", []string{"render", "-o", "json", withKeys}, 0o664, 0o600},
		{"group-writable only keeps the owner's bits", []string{"render", withKeys}, 0o620, 0o600},
		{"already private", []string{"render", withKeys}, 0o400 | 0o200, 0o600},
		{"no keys", []string{"render", noKeys}, 0o644, 0o644},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := shellFile(t, tc.before)
			code, stderr := runCLIOut(t, f, append([]string{"-v"}, tc.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got := perm(t, f); got != tc.want {
				t.Errorf("mode %o, want %o", got, tc.want)
			}
			if fi, _ := f.Stat(); fi.Size() == 0 {
				t.Error("nothing written")
			}
			if said := strings.Contains(stderr, "readable by its owner only"); said != (tc.before != tc.want) {
				t.Errorf("-v says it changed the mode: %v, want %v:\n%s", said, tc.before != tc.want, stderr)
			}
		})
	}

	t.Run("/dev/null", func(t *testing.T) {
		f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			t.Skip(err)
		}
		defer f.Close()
		before, _ := os.Stat(os.DevNull)
		if code, stderr := runCLIOut(t, f, "render", withKeys); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if after, _ := os.Stat(os.DevNull); after.Mode() != before.Mode() {
			t.Errorf("/dev/null's mode changed from %v to %v", before.Mode(), after.Mode())
		}
	})
	t.Run("pipe", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		done := make(chan []byte)
		go func() { b, _ := io.ReadAll(r); done <- b }()
		code, stderr := runCLIOut(t, w, "render", withKeys)
		w.Close()
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if b := <-done; len(b) == 0 {
			t.Error("nothing written to the pipe")
		}
	})
}
