package artifact

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/fluxcd/pkg/sourceignore"
)

// compose.go: the artifact source-watcher's ArtifactGenerator composes
// from its sources (an ExternalArtifact), as a view of the checkout: each
// file of the composed artifact is a file of the checkout, which nothing
// copies. The copy operations are applied as source-watcher's builder
// applies them (internal/builder/builder.go, applyCopyOperations), over
// each source's artifact: the checkout as Filter has it.
//
//   - from is "@alias/pattern". A pattern without glob characters (*?[])
//     names a file or a directory of the source: a file is copied to to,
//     or into it when to ends with "/" or is a directory already; a
//     directory is copied as a subdirectory of to ("@a/dir" and "@a/dir/"
//     alike make to/dir), "@a/" copies the source's root into to.
//   - A glob is matched by Go's fs.Glob, whose "*" (and so "**") never
//     crosses a "/": "@a/dir/**" matches dir's entries, each copied with
//     its subtree to to (dir/ stripped), while any other glob keeps the
//     whole matched path under to ("@a/cfg/*.yaml" to "@artifact/x/"
//     makes x/cfg/a.yaml). No match, or every match excluded, fails.
//   - exclude patterns are doublestar globs matched against the path from
//     the source's root and against the path from the literal prefix of
//     the pattern (the directory copied, for a directory); one without a
//     "/" matches a file's name at any depth.
//   - Later copies overwrite earlier ones' files.
//   - strategy Merge merges a YAML file into one the artifact has already
//     (Helm's values merge), and Extract unpacks tarballs: neither is
//     modelled, and a copy that would use them is an Unmodelled error.
//
// The composed artifact is then archived as source-controller archives a
// GitRepository with no ignore patterns of its own: the VCS patterns and
// the default exclusions (*.png, .github/, **/.sops.yaml...) leave files
// out of it, matched from its root; .sourceignore files in it are not
// read.

// Copy is one copy operation of an ArtifactGenerator's artifact.
type Copy struct {
	From, To string
	Exclude  []string
	Strategy string
}

// Copy strategies.
const (
	Overwrite = "Overwrite"
	Merge     = "Merge"
	Extract   = "Extract"
)

// Source is one source of a composition: a checkout and its artifact's
// filter (nil: the whole checkout).
type Source struct {
	Root   string
	Filter *Filter
}

// Unmodelled is the error of a copy contourc does not model: what Flux
// would build is not known, rather than wrong.
type Unmodelled struct{ Msg string }

func (e *Unmodelled) Error() string { return e.Msg }

// Composed is an artifact composed from sources: a tree of directories
// whose files are files of the checkouts.
type Composed struct {
	files map[string]string // slash path -> absolute path of its source file
	dirs  map[string]string // slash path ("" the root) -> the source directory copied there, or ""
	// left are the files and directories the archive's default
	// exclusions left out, with the pattern.
	left map[string]string
	// filter is the filter of a Tree, which says why it left a path out.
	filter *Filter
}

// Compose applies ops to sources (by alias) as source-watcher does, and
// archives the result as it does. An error is the generator's (in its
// words), or an *Unmodelled.
func Compose(ops []Copy, sources map[string]Source) (*Composed, error) {
	c := &Composed{files: map[string]string{}, dirs: map[string]string{"": ""}, left: map[string]string{}}
	for _, op := range ops {
		if err := c.apply(op, sources); err != nil {
			var u *Unmodelled
			if errors.As(err, &u) {
				return nil, err
			}
			return nil, fmt.Errorf("failed to apply copy operation from '%s' to '%s': %w", op.From, op.To, err)
		}
	}
	c.archive()
	return c, nil
}

func (c *Composed) apply(op Copy, sources map[string]Source) error {
	alias, pattern, ok := strings.Cut(strings.TrimPrefix(op.From, "@"), "/")
	if !strings.HasPrefix(op.From, "@") || !ok {
		return fmt.Errorf("invalid copy source '%s': source format must be '@alias/pattern'", op.From)
	}
	raw, ok := strings.CutPrefix(op.To, "@artifact/")
	if !ok {
		return fmt.Errorf("invalid copy destination '%s': destination must start with '@artifact/'", op.To)
	}
	if p := path.Clean(raw); p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) {
		return fmt.Errorf("invalid copy destination '%s': path escapes from parent", op.To)
	}
	dest := clean(raw)
	src, ok := sources[alias]
	if !ok {
		return fmt.Errorf("source alias '%s' not found", alias)
	}
	for _, p := range op.Exclude {
		if _, err := doublestar.Match(p, "."); err != nil {
			return fmt.Errorf("invalid exclude pattern '%s'", p)
		}
	}
	switch op.Strategy {
	case "", Overwrite, Merge:
	case Extract:
		return &Unmodelled{fmt.Sprintf("copy from '%s' uses strategy Extract (unpacking tarballs), which contourc does not model", op.From)}
	default:
		return fmt.Errorf("unknown strategy '%s'", op.Strategy)
	}
	fsys := sourceFS{src}
	if !strings.ContainsAny(pattern, "*?[]") {
		return c.single(op, fsys, pattern, dest, strings.HasSuffix(op.To, "/"))
	}
	matches, err := fs.Glob(fsys, pattern)
	if err != nil {
		return fmt.Errorf("invalid glob pattern '%s': %w", pattern, err)
	}
	if len(matches) == 0 {
		return fmt.Errorf("no files match pattern '%s' in source '%s'", pattern, alias)
	}
	base := selectionRoot(pattern)
	var kept []string
	for _, m := range matches {
		if m != "." && m != ".." && !excluded(m, base, op.Exclude) {
			kept = append(kept, m)
		}
	}
	if len(kept) == 0 {
		return fmt.Errorf("all files matching pattern '%s' in source '%s' were excluded", pattern, alias)
	}
	for _, m := range kept {
		to := path.Join(dest, m)
		if prefix, ok := strings.CutSuffix(pattern, "/**"); ok {
			if rest, ok := strings.CutPrefix(m, prefix+"/"); ok {
				to = path.Join(dest, rest)
			}
		}
		if err := c.copyPath(op, fsys, m, to, base); err != nil {
			return fmt.Errorf("failed to copy file '%s' to '%s': %w", m, to, err)
		}
	}
	return nil
}

// single copies a path named without globs, as cp would.
func (c *Composed) single(op Copy, fsys sourceFS, name, dest string, toDir bool) error {
	name = path.Clean(name)
	st, err := fs.Stat(fsys, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("source '%s' does not exist", name)
		}
		return fmt.Errorf("failed to stat source '%s': %w", name, err)
	}
	if st.IsDir() {
		return c.copyPath(op, fsys, name, path.Join(dest, path.Base(name)), name)
	}
	if excluded(name, ".", op.Exclude) {
		return nil
	}
	if _, isDir := c.dirs[dest]; toDir || isDir {
		dest = path.Join(dest, path.Base(name))
	}
	return c.copyPath(op, fsys, name, dest, ".")
}

// copyPath copies the file or directory name of fsys to dest.
func (c *Composed) copyPath(op Copy, fsys sourceFS, name, dest, base string) error {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return c.copyDir(fsys, name, dest, op.Exclude, base)
	}
	if op.Strategy == Merge && c.exists(dest) {
		return &Unmodelled{fmt.Sprintf("copy from '%s' merges %s into the artifact's %s (strategy Merge), which contourc does not model", op.From, name, dest)}
	}
	return c.copyFile(fsys, name, dest)
}

// copyDir copies the tree of name to dest, leaving out what exclude
// matches (a directory with its subtree).
func (c *Composed) copyDir(fsys sourceFS, name, dest string, exclude []string, base string) error {
	return fs.WalkDir(fsys, name, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == name {
			return c.mkdirAll(dest, fsys.real(p))
		}
		if excluded(p, base, exclude) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		to := path.Join(dest, p)
		if name != "." {
			to = path.Join(dest, strings.TrimPrefix(p, name+"/"))
		}
		if d.IsDir() {
			return c.mkdirAll(to, fsys.real(p))
		}
		return c.copyFile(fsys, p, to)
	})
}

func (c *Composed) copyFile(fsys sourceFS, name, dest string) error {
	if dest == "" {
		return fmt.Errorf("open .: is a directory")
	}
	if err := c.mkdirAll(path.Dir(dest), ""); err != nil {
		return fmt.Errorf("failed to create destination directory: %w", err)
	}
	if _, ok := c.dirs[dest]; ok {
		return fmt.Errorf("open %s: is a directory", dest)
	}
	c.files[dest] = fsys.real(name)
	return nil
}

// mkdirAll makes dir and its parents; real is the source directory
// copied there ("" for one made as a parent).
func (c *Composed) mkdirAll(dir, real string) error {
	if dir == "." {
		dir = ""
	}
	if _, ok := c.files[dir]; ok {
		return fmt.Errorf("mkdir %s: not a directory", dir)
	}
	if dir != "" {
		if err := c.mkdirAll(path.Dir(dir), ""); err != nil {
			return err
		}
	}
	if real != "" {
		c.dirs[dir] = real
	} else if _, ok := c.dirs[dir]; !ok {
		c.dirs[dir] = ""
	}
	return nil
}

func (c *Composed) exists(p string) bool {
	_, f := c.files[p]
	_, d := c.dirs[p]
	return f || d
}

// archive leaves out what source-controller's archive of a directory with
// no ignore patterns leaves out: the VCS patterns and the default
// exclusions (sourceignore.NewDefaultMatcher), the last matching pattern
// deciding. A directory they match stays when a file below it is kept.
func (c *Composed) archive() {
	defaults := strings.Join([]string{sourceignore.ExcludeExt, sourceignore.ExcludeCI, sourceignore.ExcludeExtra}, ",")
	f := &Filter{rules: append(rules(sourceignore.ExcludeVCS, "source-controller's VCS exclusions"), rules(defaults, "source-controller's default exclusions")...)}
	for p := range c.files {
		if why := f.match(strings.Split(p, "/"), false); why != "" {
			c.left[p] = why
			delete(c.files, p)
		}
	}
	kept := map[string]bool{}
	for p := range c.files {
		for d := path.Dir(p); d != "." && !kept[d]; d = path.Dir(d) {
			kept[d] = true
		}
	}
	for d := range c.dirs {
		if d == "" || kept[d] {
			continue
		}
		if why := f.match(strings.Split(d, "/"), true); why != "" {
			c.left[d] = why
			delete(c.dirs, d)
		}
	}
}

// File is the source file of the artifact's file p (a slash path from
// its root), if it has one.
func (c *Composed) File(p string) (string, bool) {
	real, ok := c.files[clean(p)]
	return real, ok
}

// IsDir says whether p is a directory of the artifact.
func (c *Composed) IsDir(p string) bool {
	_, ok := c.dirs[clean(p)]
	return ok
}

// Dir is the directory of a checkout last copied whole to the artifact's
// directory p, or "" when none was (p was made as the parent of what was
// copied).
func (c *Composed) Dir(p string) string { return c.dirs[clean(p)] }

// LeftOut says why the archive left p out, or "".
func (c *Composed) LeftOut(p string) string {
	if why := c.left[clean(p)]; why != "" {
		return why
	}
	return c.filteredOut(clean(p))
}

// ReadDir are the names of the entries of the directory p, in order.
func (c *Composed) ReadDir(p string) []string {
	p = clean(p)
	var out []string
	for _, m := range []map[string]string{c.files, c.dirs} {
		for q := range m {
			if q != "" && clean(path.Dir(q)) == p {
				out = append(out, path.Base(q))
			}
		}
	}
	sort.Strings(out)
	return out
}

// Files are the artifact's files, in order.
func (c *Composed) Files() []string {
	out := make([]string, 0, len(c.files))
	for p := range c.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// clean is p as the artifact's paths are kept: slash-separated, from
// the root, "" for the root.
func clean(p string) string {
	return path.Clean("/" + filepath.ToSlash(p))[1:]
}

// selectionRoot is the literal prefix of a pattern, before its first
// segment with glob characters.
func selectionRoot(pattern string) string {
	var root []string
	for _, part := range strings.Split(path.Clean(pattern), "/") {
		if strings.ContainsAny(part, "*?[]") {
			break
		}
		root = append(root, part)
	}
	if len(root) == 0 {
		return "."
	}
	return path.Join(root...)
}

// excluded says whether an exclude pattern matches p, from the source's
// root or from base.
func excluded(p, base string, patterns []string) bool {
	if matchesAny(p, patterns) {
		return true
	}
	if base == "." || base == "" {
		return false
	}
	rel, ok := strings.CutPrefix(p, base+"/")
	return ok && matchesAny(rel, patterns)
}

func matchesAny(p string, patterns []string) bool {
	for _, pat := range patterns {
		if doublestar.MatchUnvalidated(pat, p) {
			return true
		}
		if !strings.Contains(pat, "/") && doublestar.MatchUnvalidated(pat, path.Base(p)) {
			return true
		}
	}
	return false
}

// sourceFS is a source's artifact as an fs.FS: the checkout less what the
// artifact leaves out (symbolic links, what its ignore rules match).
type sourceFS struct{ Source }

func (s sourceFS) real(name string) string {
	return filepath.Join(s.Root, filepath.FromSlash(name))
}

func (s sourceFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	st, err := os.Lstat(s.real(name))
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	if !st.Mode().IsRegular() && !st.IsDir() || s.hidden(name, st.IsDir()) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return st, nil
}

func (s sourceFS) hidden(name string, isDir bool) bool {
	if name == "." {
		return false
	}
	if segs := strings.Split(name, "/"); segs[len(segs)-1] == ".git" {
		return true // never in an artifact, and not worth walking
	}
	return s.Filter != nil && s.Filter.Excluded(s.real(name), isDir) != ""
}

func (s sourceFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if _, err := s.Stat(name); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(s.real(name))
	if err != nil {
		return nil, err
	}
	out := entries[:0]
	for _, e := range entries {
		if !e.Type().IsRegular() && !e.IsDir() || s.hidden(path.Join(name, e.Name()), e.IsDir()) {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

func (s sourceFS) Open(name string) (fs.File, error) {
	if _, err := s.Stat(name); err != nil {
		return nil, err
	}
	return os.Open(s.real(name))
}
