package serve

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fsnotify/fsnotify"
)

func newTestWatcher(t *testing.T, paths ...string) *watcher {
	t.Helper()
	w, err := newWatcher(paths, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.close(false) })
	return w
}

func TestWatcherRelevant(t *testing.T) {
	root := t.TempDir()
	tree := filepath.Join(root, "tree")
	writeFile(t, filepath.Join(tree, "sub", "a.yaml"), "")
	writeFile(t, filepath.Join(root, "single.conf"), "")
	writeFile(t, filepath.Join(root, "other.yaml"), "")
	w := newTestWatcher(t, tree, filepath.Join(root, "single.conf"))
	for _, tt := range []struct {
		path string
		want bool
	}{
		{"tree/sub/a.yaml", true},
		{"tree/sub/b.YML", true},
		{"tree/c.json", true},
		{"tree/Kustomization", true}, // kustomize's name without an extension
		{"tree/README.md", false},
		{"tree/.a.yaml.swp", false}, // an editor's swap file
		{"tree/a.yaml~", false},     // a backup
		{"tree/..data", true},       // a ConfigMap volume update
		{"tree/sub", true},          // a watched directory removed
		{"tree", true},              // a root replaced
		{"single.conf", true},       // a file root, whatever its extension
		{"other.yaml", false},       // next to a file root, not a root
		{"..data", true},            // a ConfigMap swap next to a file root
		{"tree/.git/index", false},  // hidden directories are skipped
	} {
		ev := fsnotify.Event{Name: filepath.Join(root, tt.path), Op: fsnotify.Write}
		if got := w.relevant(ev); got != tt.want {
			t.Errorf("relevant(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
	// A directory created in the tree counts: its files are new.
	if err := os.Mkdir(filepath.Join(tree, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	if !w.relevant(fsnotify.Event{Name: filepath.Join(tree, "new"), Op: fsnotify.Create}) {
		t.Error("a new directory is not relevant")
	}
}

func TestWatcherSync(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a", "x.yaml"), "")
	writeFile(t, filepath.Join(root, ".git", "config"), "")
	w := newTestWatcher(t, root)
	watched := func() []string {
		w.mu.Lock()
		defer w.mu.Unlock()
		var rel []string
		for d, role := range w.dirs {
			if role == inTree {
				r, _ := filepath.Rel(root, d)
				rel = append(rel, r)
			}
		}
		slices.Sort(rel)
		return rel
	}
	if got := watched(); !slices.Equal(got, []string{".", "a"}) {
		t.Errorf("watched %v", got)
	}
	if err := os.MkdirAll(filepath.Join(root, "b", "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	w.sync()
	if got := watched(); !slices.Equal(got, []string{".", "b", "b/c"}) {
		t.Errorf("after sync, watched %v", got)
	}
}

func TestNewWatcherRejects(t *testing.T) {
	if _, err := newWatcher([]string{"-"}, slog.New(slog.DiscardHandler)); err == nil {
		t.Error("stdin accepted")
	}
	if _, err := newWatcher([]string{filepath.Join(t.TempDir(), "missing")}, slog.New(slog.DiscardHandler)); !os.IsNotExist(err) {
		t.Errorf("missing path: %v", err)
	}
}
