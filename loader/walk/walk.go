package walk

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// StdinPath is the path that means "read Options.Stdin".
const StdinPath = "-"

// StdinName is the Source.File of objects read from stdin.
const StdinName = "<stdin>"

// manifestExts are the file extensions a directory walk picks up. Files named
// explicitly on the command line are read whatever their extension, as
// kubectl apply -f does.
var manifestExts = map[string]bool{".yaml": true, ".yml": true, ".json": true}

// ExpandPaths turns the paths given to Load into the list of files to read:
// files as given, directories walked recursively in lexical order (hidden
// directories and files skipped, kustomization files kept for
// loader/kustomizations.go), "-" kept as is. A path given twice is read
// once so that `contourc render dir dir/file.yaml` does not report every
// object in file.yaml as a duplicate of itself. named holds the paths
// given as files, which alone may be named pipes (see expandPath); filter
// (filter.go) leaves out Helm charts and what --exclude names.
func ExpandPaths(paths []string, filter *Filter) (files []string, named map[string]bool, errs []error) {
	seen := map[string]bool{}
	named = map[string]bool{}
	add := func(f string) bool {
		key := f
		if f != StdinPath {
			key = filepath.Clean(f)
		}
		if seen[key] {
			return false
		}
		seen[key] = true
		files = append(files, f)
		return true
	}
	w := &walker{dirs: map[dirKey]bool{}, filter: filter}
	for _, p := range paths {
		if p == StdinPath {
			add(p)
			continue
		}
		found, isNamed, err := w.expandPath(p)
		if err != nil {
			errs = append(errs, err...)
		}
		for _, f := range found {
			if add(f) && isNamed {
				named[f] = true
			}
		}
	}
	return files, named, errs
}

// InputSize is the total size of the files Load would read for paths,
// standard input and paths it cannot read counting as nothing: for a
// caller that sizes its memory to the input before loading it.
func InputSize(paths []string) int64 {
	files, _, _ := ExpandPaths(paths, nil)
	var n int64
	for _, f := range files {
		if f == StdinPath {
			continue
		}
		if info, err := os.Stat(f); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
	}
	return n
}

// walker lists the manifest files of the paths given to one Load.
type walker struct {
	// dirs are the directories walked so far: a directory reached again
	// (through a symbolic link, to an ancestor or elsewhere) is read once.
	dirs map[dirKey]bool
	// found are the manifest files of the directory being walked.
	found []string
	// filter leaves out Helm charts and what --exclude names, relative
	// to root, the path given to Load being walked.
	filter *Filter
	root   string
}

// expandPath lists the manifest files at p that the filter does not leave
// out; named says p is a file given by name rather than a directory. A
// file named on the command line is read whatever its extension, as
// kubectl apply -f does, and may be a named pipe: /dev/stdin and a shell's
// process substitution, <(kubectl get ...), are pipes, which kubectl reads
// too. Other files that are not regular (devices, sockets) are refused:
// reading /dev/zero would never end.
func (w *walker) expandPath(p string) (files []string, named bool, errs []error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, false, []error{&manifest.Error{Source: manifest.Source{File: p}, Msg: manifest.DescribeFSError(err)}}
	}
	switch mode := info.Mode(); {
	case mode.IsDir() && w.filter.skipDir(p, p):
		return nil, false, nil
	case mode.IsDir():
		w.root = p
		errs = w.walkDir(p, info, nil)
		// WalkDir's lexical order, whatever the links followed.
		sort.Strings(w.found)
		files, w.found = w.found, nil
		return files, false, errs
	case w.filter.skipFile(p, p):
		return nil, false, nil
	case mode.IsRegular(), mode&fs.ModeNamedPipe != 0:
		return []string{p}, true, nil
	default:
		return nil, false, []error{notRegular(p, mode)}
	}
}

// isHidden reports whether a file or directory name is hidden (.git,
// .terraform, editor swap files...), which a walk skips.
func isHidden(name string) bool {
	return strings.HasPrefix(name, ".") && name != "." && name != ".."
}

// RealPath is path as kustomize names the files it reads: absolute, with
// symbolic links resolved.
func RealPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}
