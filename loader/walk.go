package loader

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/contourc/contourc/loader/kustomize"
)

// stdinPath is the path that means "read Options.Stdin".
const stdinPath = "-"

// stdinName is the Source.File of objects read from stdin.
const stdinName = "<stdin>"

// manifestExts are the file extensions a directory walk picks up. Files named
// explicitly on the command line are read whatever their extension, as
// kubectl apply -f does.
var manifestExts = map[string]bool{".yaml": true, ".yml": true, ".json": true}

// expandPaths turns the paths given to Load into the list of files to read:
// files as given, directories walked recursively in lexical order (hidden
// directories and files skipped, kustomization files kept for
// kustomizations.go), "-" kept as is. A path given twice is read
// once so that `contourc render dir dir/file.yaml` does not report every
// object in file.yaml as a duplicate of itself.
func expandPaths(paths []string) ([]string, []error) {
	var files []string
	var errs []error
	seen := map[string]bool{}
	add := func(f string) {
		key := f
		if f != stdinPath {
			key = filepath.Clean(f)
		}
		if !seen[key] {
			seen[key] = true
			files = append(files, f)
		}
	}
	for _, p := range paths {
		if p == stdinPath {
			add(p)
			continue
		}
		found, err := expandPath(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range found {
			add(f)
		}
	}
	return files, errs
}

// InputSize is the total size of the files Load would read for paths,
// standard input and paths it cannot read counting as nothing: for a
// caller that sizes its memory to the input before loading it.
func InputSize(paths []string) int64 {
	files, _ := expandPaths(paths)
	var n int64
	for _, f := range files {
		if f == stdinPath {
			continue
		}
		if info, err := os.Stat(f); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
	}
	return n
}

// expandPath lists the manifest files at p.
func expandPath(p string) ([]string, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, &Error{Source: Source{File: p}, Msg: describeFSError(err)}
	}
	if !info.IsDir() {
		return []string{p}, nil
	}
	// A trailing separator makes WalkDir follow the root when it is a
	// symlink to a directory; links below the root are not followed, so a
	// link cycle cannot make the walk endless.
	if !os.IsPathSeparator(p[len(p)-1]) {
		p += string(os.PathSeparator)
	}
	return walkManifests(p)
}

// walkManifests lists the manifest files under directory root, in lexical
// order, skipping hidden files and directories.
func walkManifests(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return &Error{Source: Source{File: path}, Msg: describeFSError(err)}
		case path != root && isHidden(d.Name()) && d.IsDir():
			return fs.SkipDir
		case path != root && isHidden(d.Name()):
		case !d.IsDir() && (manifestExts[strings.ToLower(filepath.Ext(path))] || kustomize.IsKustomizationFile(d.Name())):
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// WalkDir already visits entries in lexical order; sorting again makes
	// the order independent of that implementation detail.
	sort.Strings(files)
	return files, nil
}

// isHidden reports whether a file or directory name is hidden (.git,
// .terraform, editor swap files...), which a walk skips.
func isHidden(name string) bool {
	return strings.HasPrefix(name, ".") && name != "." && name != ".."
}

// describeFSError says what went wrong with a path without repeating it:
// the path is already in the Error's Source.
func describeFSError(err error) string {
	switch {
	case os.IsNotExist(err):
		return "no such file or directory"
	case os.IsPermission(err):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
