package walk

// What a directory walk leaves out besides hidden files: Helm charts, and
// what --exclude patterns match.

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/contourc/contourc/loader/ignore"
	"github.com/contourc/contourc/loader/internal/manifest"
)

// HelmChartFile marks a directory as a Helm chart: `helm` reads a chart
// from the directory that holds it.
const HelmChartFile = "Chart.yaml"

// Filter decides, during the walk of the paths given to Load, which
// directories and files to leave out, and remembers them for the notices.
// One walk at a time uses it.
type Filter struct {
	Exclude *ignore.Matcher
	Left    []manifest.SkippedFile
}

// skipDir reports whether the walk of root leaves the directory path out,
// with everything in it: when an --exclude pattern matches it (relative to
// root), or when it is a Helm chart, whose templates only helm renders
// (the chart's values.yaml and templates/ are skipped with it).
func (f *Filter) skipDir(root, path string) bool {
	if f == nil {
		return false
	}
	if path != root && f.excluded(root, path, true) {
		return true
	}
	if info, err := os.Stat(filepath.Join(path, HelmChartFile)); err == nil && info.Mode().IsRegular() {
		f.Left = append(f.Left, manifest.SkippedFile{Path: dirPath(path), Files: countManifests(path), Reason: manifest.SkipHelmChart, Detail: "holds " + HelmChartFile + "; to render it, give the chart directory as a PATH, with -f and --set as for helm template"})
		return true
	}
	return false
}

// skipFile reports whether an --exclude pattern leaves out the file path
// found walking root. A file named on the command line is its own root,
// matched by its name.
func (f *Filter) skipFile(root, path string) bool {
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
func (f *Filter) excluded(root, path string, isDir bool) bool {
	if f.Exclude.Empty() {
		return false
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return false
	}
	out, pattern := f.Exclude.Match(filepath.ToSlash(rel), isDir)
	if out {
		shown := path
		if isDir {
			shown = dirPath(path)
		}
		f.Left = append(f.Left, manifest.SkippedFile{Path: shown, Reason: manifest.SkipExcluded, Detail: "--exclude " + pattern})
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
