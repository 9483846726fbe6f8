package argocd

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gobwas/glob"

	"github.com/contourc/contourc/loader/kustomize"
)

// directory.go: the files a directory source reads, as Argo CD's repo
// server picks them (reposerver/repository: getPotentiallyValidManifests):
// a walk of the source's path, into subdirectories only with recurse;
// files named *.yaml, *.yml, *.json or *.jsonnet (any name with
// disableExtensionFilter); exclude, then include, each one glob matched
// against the file's path relative to the source's path; and files that
// hold the skip-rendering marker left out.

// skipRenderingMarker in a file makes Argo CD leave it out of a directory
// source.
const skipRenderingMarker = "+argocd:skip-file-rendering"

// Skipped is a file of a directory source that is not read, and why.
type Skipped struct {
	File   string // path as found from the source's directory
	Reason string
}

// DirectoryFiles are the files a directory source at appDir reads, in
// Argo CD's order (a lexical walk), and the files it leaves out that
// contourc would otherwise have read or that Argo CD would have read
// and contourc cannot (jsonnet). repoRoot bounds symbolic links: Argo CD
// refuses a source with a link out of the repository.
func DirectoryFiles(appDir, repoRoot string, d Directory) (files []string, skipped []Skipped, err error) {
	include, exclude := compileGlob(d.Include), compileGlob(d.Exclude)
	err = filepath.Walk(appDir, func(path string, info fs.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			if path != appDir && !d.Recurse {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(appDir, path)
		if err != nil {
			return err
		}
		take, why, err := directoryFile(path, rel, info, repoRoot, d.DisableExtensionFilter, include, exclude)
		switch {
		case err != nil:
			return fmt.Errorf("invalid manifest file %q: %w", rel, err)
		case take && strings.HasSuffix(info.Name(), ".jsonnet"):
			skipped = append(skipped, Skipped{File: path, Reason: "jsonnet is not evaluated"})
		case take:
			files = append(files, path)
		case why != "":
			skipped = append(skipped, Skipped{File: path, Reason: why})
		}
		return nil
	})
	return files, skipped, err
}

// isManifestName is Argo CD's extension filter of directory sources.
func isManifestName(name string) bool {
	for _, ext := range []string{".yaml", ".yml", ".json", ".jsonnet"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// directoryFile decides one file of the walk: take it, or leave it out
// (why says so when the user may want to know); an error fails the
// whole source, as Argo CD fails it.
func directoryFile(path, rel string, info fs.FileInfo, repoRoot string, anyName bool, include, exclude matcher) (take bool, why string, err error) {
	if !anyName && !isManifestName(info.Name()) {
		return false, "", nil
	}
	real := info
	if info.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			if os.IsNotExist(err) {
				return false, fmt.Sprintf("destination of symlink %q is missing", rel), nil
			}
			return false, "", fmt.Errorf("failed to evaluate symlink at %q: %w", rel, err)
		}
		if !inside(target, repoRoot) {
			return false, "", fmt.Errorf("illegal filepath in symlink at %q", rel)
		}
		if real, err = os.Stat(target); err != nil {
			return false, "", err
		}
	}
	if !real.Mode().IsRegular() {
		return false, "not a regular file", nil
	}
	if exclude.set && exclude.match(rel) {
		return false, "excluded by directory.exclude " + quote(exclude.pattern), nil
	}
	if include.set && !include.match(rel) {
		return false, "not included by directory.include " + quote(include.pattern), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false, "", fmt.Errorf("failed to read %q: %w", rel, err)
	}
	if bytes.Contains(data, []byte(skipRenderingMarker)) {
		return false, "holds " + skipRenderingMarker, nil
	}
	if kustomize.IsKustomizationFile(info.Name()) {
		// Argo CD reads it as a manifest, which is no object a cluster
		// serves (or, without apiVersion and kind, ignores it); contourc
		// would build the directory instead.
		return false, "a kustomization file, which a directory source does not build", nil
	}
	return true, "", nil
}

// inside reports whether path is dir or below it.
func inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// matcher is a compiled include or exclude pattern.
type matcher struct {
	set     bool // a pattern was given
	pattern string
	g       glob.Glob // nil when the pattern does not compile
}

// compileGlob compiles a pattern the way Argo CD's util/glob does: with
// github.com/gobwas/glob and no separators, so `*` matches across `/`
// (`*.yaml` takes files in subdirectories too), `{a,b}` is either,
// `[...]` a class, and `?` one character. A pattern that does not
// compile matches nothing (Argo CD logs it and goes on): an exclude
// excludes nothing, an include includes nothing.
func compileGlob(pattern string) matcher {
	m := matcher{set: pattern != "", pattern: pattern}
	if m.set {
		m.g, _ = glob.Compile(pattern)
	}
	return m
}

func (m matcher) match(rel string) bool {
	return m.g != nil && m.g.Match(filepath.ToSlash(rel))
}

// MatchGlob reports whether Argo CD's include or exclude pattern matches
// a path relative to the source's directory.
func MatchGlob(pattern, rel string) bool { return compileGlob(pattern).match(rel) }
