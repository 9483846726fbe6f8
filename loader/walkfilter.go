package loader

// What a directory walk leaves out besides hidden files: Helm charts, and
// what --exclude patterns match.

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/contourc/contourc/loader/ignore"
)

// helmChartFile marks a directory as a Helm chart: `helm` reads a chart
// from the directory that holds it.
const helmChartFile = "Chart.yaml"

// walkFilter decides, during the walk of the paths given to Load, which
// directories and files to leave out, and remembers them for the notices.
// One walk at a time uses it.
type walkFilter struct {
	exclude *ignore.Matcher
	left    []SkippedFile
}

// skipDir reports whether the walk of root leaves the directory path out,
// with everything in it: when an --exclude pattern matches it (relative to
// root), or when it is a Helm chart, whose templates only helm renders
// (the chart's values.yaml and templates/ are skipped with it).
func (f *walkFilter) skipDir(root, path string) bool {
	if f == nil {
		return false
	}
	if path != root && f.excluded(root, path, true) {
		return true
	}
	if info, err := os.Stat(filepath.Join(path, helmChartFile)); err == nil && info.Mode().IsRegular() {
		f.left = append(f.left, SkippedFile{Path: dirPath(path), Files: countManifests(path), Reason: SkipHelmChart, Detail: "holds " + helmChartFile + "; to render it, give the chart directory as a PATH, with -f and --set as for helm template"})
		return true
	}
	return false
}

// skipFile reports whether an --exclude pattern leaves out the file path
// found walking root. A file named on the command line is its own root,
// matched by its name.
func (f *walkFilter) skipFile(root, path string) bool {
	if f == nil {
		return false
	}
	if root == path {
		root = filepath.Dir(path)
	}
	return f.excluded(root, path, false)
}

// excluded matches path, relative to root, against the --exclude
// patterns, and records it when they leave it out.
func (f *walkFilter) excluded(root, path string, isDir bool) bool {
	if f.exclude.Empty() {
		return false
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return false
	}
	out, pattern := f.exclude.Match(filepath.ToSlash(rel), isDir)
	if out {
		shown := path
		if isDir {
			shown = dirPath(path)
		}
		f.left = append(f.left, SkippedFile{Path: shown, Reason: SkipExcluded, Detail: "--exclude " + pattern})
	}
	return out
}

// dirPath is a directory's path ending in a separator, as notices show it.
func dirPath(p string) string {
	if os.IsPathSeparator(p[len(p)-1]) {
		return p
	}
	return p + string(os.PathSeparator)
}

// countManifests is how many files a walk would read under dir: for a
// skipped directory's notice.
func countManifests(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case path != dir && isHidden(d.Name()) && d.IsDir():
			return fs.SkipDir
		case d.Type().IsRegular() && !isHidden(d.Name()) && manifestExts[strings.ToLower(filepath.Ext(path))]:
			n++
		}
		return nil
	})
	return n
}
