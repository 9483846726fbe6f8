package serve

// Watching the input paths for changes with fsnotify (inotify on Linux).
//
// inotify watches single directories, so a tree is watched directory by
// directory, the same directories the loader reads (hidden ones skipped,
// symlinked ones not followed). Rather than patching that set event by event
// (a new directory, a renamed one, one replaced by a `git checkout`), it is
// recomputed from the disk before every reload (sync): a directory created
// since the last reload is watched before its files are read, so a file
// written into it later is seen, and one written before is read anyway.
//
// Besides the tree, the directory holding each path is watched, for the path
// itself being created, deleted or replaced, and for the way Kubernetes
// updates ConfigMap and Secret volumes: every file there is a symlink
// through `..data`, itself a symlink to a timestamped directory, and an
// update swaps `..data` atomically (a rename) to a new directory, so the
// only event is about `..data`, next to the files.

import (
	"errors"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"

	"github.com/contourc/contourc/loader/kustomize"
)

// manifestExts are the extensions the loader reads in a directory.
var manifestExts = map[string]bool{".yaml": true, ".yml": true, ".json": true}

// dirRole says why a directory is watched.
type dirRole int

const (
	// inTree: a directory the loader reads; every manifest event counts.
	inTree dirRole = iota + 1
	// besideRoot: the directory holding a path given on the command line;
	// only events about that path, or about a `..data` swap, count.
	besideRoot
)

type watcher struct {
	fs    *fsnotify.Watcher
	roots []string // cleaned input paths
	log   *slog.Logger

	// changed receives a value when a relevant event arrived; its buffer of
	// one coalesces a burst while the receiver is busy.
	changed chan struct{}

	mu     sync.Mutex
	dirs   map[string]dirRole // watched directories
	isRoot map[string]bool
	// touched are the paths of the relevant events since takeTouched
	// (truncation.go), at most maxTouched of them.
	touched map[string]bool
	closing sync.Once
	done    chan struct{} // closed when run has returned
}

// newWatcher watches paths, which must exist: a typo in a path is better
// reported at once than waited on forever.
func newWatcher(paths []string, log *slog.Logger) (*watcher, error) {
	w := &watcher{
		log:     log,
		changed: make(chan struct{}, 1),
		dirs:    map[string]dirRole{},
		isRoot:  map[string]bool{},
		touched: map[string]bool{},
		done:    make(chan struct{}),
	}
	for _, p := range paths {
		if p == "-" {
			return nil, errors.New("serve cannot watch standard input (-): give files or directories")
		}
		if _, err := os.Stat(p); err != nil {
			return nil, err
		}
		c := filepath.Clean(p)
		if !w.isRoot[c] {
			w.isRoot[c] = true
			w.roots = append(w.roots, c)
		}
	}
	var err error
	if w.fs, err = fsnotify.NewWatcher(); err != nil {
		return nil, err
	}
	w.sync()
	return w, nil
}

// run passes relevant events on to changed until close is called.
func (w *watcher) run() {
	defer close(w.done)
	for {
		select {
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			if w.relevant(ev) {
				w.log.Debug("file changed", "path", ev.Name, "op", ev.Op.String())
				w.touch(ev.Name)
				w.notify()
			}
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: whatever they were, reloading
				// catches up with them.
				w.log.Warn("file events overflowed; reloading everything", "error", err)
				w.notify()
				continue
			}
			w.log.Warn("watching files", "error", err)
		}
	}
}

func (w *watcher) notify() {
	select {
	case w.changed <- struct{}{}:
	default: // a change is already pending
	}
}

// maxTouched bounds the paths touched remembers between two reloads: a
// burst (a checkout of thousands of files) is not worth checking file by
// file for truncation, and must not grow the set without bound.
const maxTouched = 4096

func (w *watcher) touch(name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.touched) < maxTouched {
		w.touched[filepath.Clean(name)] = true
	}
}

// takeTouched returns the paths touched since the last call.
func (w *watcher) takeTouched() map[string]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.touched
	w.touched = map[string]bool{}
	return t
}

// close stops watching and waits for run to return, when it was started.
func (w *watcher) close(started bool) {
	w.closing.Do(func() { w.fs.Close() })
	if started {
		<-w.done
	}
}

// relevant reports whether ev may change what the loader reads.
func (w *watcher) relevant(ev fsnotify.Event) bool {
	name := filepath.Clean(ev.Name)
	dir, base := filepath.Dir(name), filepath.Base(name)
	w.mu.Lock()
	root, role, wasDir := w.isRoot[name], w.dirs[dir], w.dirs[name] == inTree
	w.mu.Unlock()
	switch {
	case root:
		return true
	case strings.HasPrefix(base, ".."):
		// Kubernetes' atomic volume update: ..data, ..data_tmp and the
		// ..<timestamp> directories.
		return role != 0
	case role != inTree, isHidden(base):
		// Editors' swap and backup files, .git: the loader skips them.
		return false
	case manifestExts[strings.ToLower(filepath.Ext(base))], kustomize.IsKustomizationFile(base), wasDir:
		return true
	}
	// A directory created or moved into the tree: its manifests are new.
	fi, err := os.Stat(name)
	return err == nil && fi.IsDir()
}

// isHidden matches the loader's rule: names starting with a dot.
func isHidden(name string) bool {
	return strings.HasPrefix(name, ".") && name != "." && name != ".."
}

// sync makes the watched directories those the roots need now. Directories
// no longer wanted are removed first: a directory renamed within the tree
// keeps its inotify watch under the old name, and only removing that watch
// lets the new name get one of its own.
func (w *watcher) sync() {
	want := w.wantedDirs()
	w.mu.Lock()
	defer w.mu.Unlock()
	for d := range w.dirs {
		if _, ok := want[d]; !ok {
			_ = w.fs.Remove(d) // fails when the directory is gone, as wanted
			delete(w.dirs, d)
		}
	}
	// Adding again what is already watched is cheap (one syscall) and
	// re-arms a directory deleted and created again between two reloads.
	for _, d := range slices.Sorted(maps.Keys(want)) {
		if err := w.fs.Add(d); err != nil {
			w.log.Debug("cannot watch directory", "path", d, "error", err)
			delete(w.dirs, d)
			continue
		}
		w.dirs[d] = want[d]
	}
}

// wantedDirs lists the directories to watch: each root's directory, and
// every directory the loader would walk under a directory root.
func (w *watcher) wantedDirs() map[string]dirRole {
	want := map[string]dirRole{}
	for _, r := range w.roots {
		if _, ok := want[filepath.Dir(r)]; !ok {
			want[filepath.Dir(r)] = besideRoot
		}
		fi, err := os.Stat(r)
		if err != nil || !fi.IsDir() {
			continue
		}
		// The trailing separator makes WalkDir enter a root that is a
		// symlink, as the loader does; links below it are not followed.
		_ = filepath.WalkDir(r+string(os.PathSeparator), func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			p = filepath.Clean(p)
			if p != r && isHidden(d.Name()) {
				return fs.SkipDir
			}
			want[p] = inTree
			return nil
		})
	}
	return want
}
