package walk

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/contourc/contourc/loader/internal/manifest"
	"github.com/contourc/contourc/loader/kustomize"
)

// walkDir adds the manifest files under dir, whose FileInfo is info, to
// w.found, skipping hidden files and directories and what w.filter
// leaves out. Symbolic links are
// followed, to directories too: a tree of manifests assembled from links
// (a shared base linked into each environment) is common, and skipping
// the linked directories without a word left their objects out. A
// directory is walked once, however many links lead to it, so a link to
// an ancestor cannot make the walk endless.
func (w *walker) walkDir(dir string, info os.FileInfo, errs []error) []error {
	key, ok := dirKeyOf(dir, info)
	switch {
	case !ok:
		// Without its identity, a link cycle could not be told.
		return append(errs, &manifest.Error{Source: manifest.Source{File: dir}, Msg: "cannot tell which directory this is"})
	case w.dirs[key]:
		return errs
	}
	w.dirs[key] = true
	entries, err := os.ReadDir(dir)
	if err != nil {
		return append(errs, &manifest.Error{Source: manifest.Source{File: dir}, Msg: manifest.DescribeFSError(err)})
	}
	for _, e := range entries {
		if isHidden(e.Name()) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		mode := e.Type()
		if mode&fs.ModeSymlink != 0 || mode.IsDir() {
			// Stat follows the link: the target decides.
			target, err := os.Stat(path)
			switch {
			case err != nil && isManifest(path):
				errs = append(errs, &manifest.Error{Source: manifest.Source{File: path}, Msg: manifest.DescribeFSError(err)})
				continue
			case err != nil:
				continue // a dangling link that is no manifest
			case target.IsDir() && w.filter.skipDir(w.root, path):
				continue
			case target.IsDir():
				errs = w.walkDir(path, target, errs)
				continue
			}
			mode = target.Mode().Type()
		}
		switch {
		case !isManifest(path) && !kustomize.IsKustomizationFile(e.Name()):
			// kustomization files are kept for loader/kustomizations.go.
		case w.filter.skipFile(w.root, path):
		case mode.IsRegular():
			w.found = append(w.found, path)
		default:
			// Opening a named pipe blocks until something writes to it;
			// a device may never end. A walk reads regular files only.
			errs = append(errs, notRegular(path, mode))
		}
	}
	return errs
}

// isManifest reports whether a walk picks up the file at path: by its
// extension.
func isManifest(path string) bool { return manifestExts[strings.ToLower(filepath.Ext(path))] }

// notRegular is the error for a file that is not a regular file, saying
// what it is.
func notRegular(path string, mode fs.FileMode) error {
	return &manifest.Error{Source: manifest.Source{File: path}, Msg: fmt.Sprintf("not a regular file (%s)", fileKind(mode))}
}

// fileKind names the type of a file that is not a regular file.
func fileKind(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode.IsDir():
		return "a directory"
	default:
		return "an irregular file"
	}
}
