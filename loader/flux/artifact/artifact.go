// Package artifact says which files of a checkout are in the artifact
// Flux's source-controller makes of a GitRepository, which is all that
// kustomize-controller then sees of the repository; of an OCIRepository
// whose artifact `flux push artifact` pushed from a directory of the
// checkout (pushed.go); and what an ArtifactGenerator composes of them
// (compose.go).
//
// source-controller archives the checkout leaving out (fluxcd/pkg/artifact
// storage.Archive with SourceIgnoreFilter, fluxcd/pkg/sourceignore):
//   - what anything other than a regular file or a directory is: symbolic
//     links, and so everything reached through one;
//   - what the ignore patterns match, in gitignore syntax, the last
//     matching pattern deciding: the VCS patterns (.git/, .gitignore,
//     .gitmodules, .gitattributes) always come first; then the patterns of
//     every .sourceignore file of the checkout, each applying below its own
//     directory (a directory's file before those of its subdirectories,
//     in name order), then those of the GitRepository's spec.ignore, which
//     apply from the root. When there are none of these, source-
//     controller's default exclusions take their place: the extensions
//     *.jpg *.jpeg *.gif *.png *.wmv *.flv *.tar.gz *.zip, the CI files
//     (.github/, .circleci/, .travis.yml, .gitlab-ci.yml, appveyor.yml,
//     .drone.yml, cloudbuild.yaml, codeship-services.yml,
//     codeship-steps.yml) and **/.goreleaser.yml, **/.sops.yaml,
//     **/.flux.yaml.
//
// The patterns are matched by Flux's own matcher (go-git's rules, which
// differ from git's: the archive walk does not prune a directory that a
// pattern leaves out, so a later "!" pattern can take back a file inside
// it).
package artifact

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fluxcd/pkg/sourceignore"
	"github.com/fluxcd/pkg/sourceignore/gitignore"
)

// Filter answers which paths of one checkout are left out of a
// GitRepository's artifact (or of the directory an OCIRepository's
// artifact was pushed from, LoadPushed).
type Filter struct {
	root, realRoot string
	source         string // "GitRepository NS/NAME", for messages
	key            string
	rules          []rule
	// pushed are the ignore paths of `flux push artifact` (pushed.go),
	// matched before rules: what they leave out was never in the
	// artifact, whatever rules say.
	pushed   []rule
	symlinks map[string]bool // slash paths from the root

	mu   sync.Mutex
	kept map[string]bool // directory -> holds a file in the artifact
}

// rule is one ignore pattern and where it was written.
type rule struct {
	p    gitignore.Pattern
	text string
	from string
}

// Load reads the ignore rules of the checkout at root for the
// GitRepository named source, whose spec.ignore is ignore ("" when it
// sets none).
func Load(root, source, ignore string) (*Filter, error) {
	f := newFilter(root, source, source+"\x00"+ignore)
	return f, f.load(ignore)
}

func newFilter(root, source, key string) *Filter {
	f := &Filter{root: filepath.Clean(root), source: source, key: key, symlinks: map[string]bool{}, kept: map[string]bool{}}
	f.realRoot = f.root
	if real, err := filepath.EvalSymlinks(f.root); err == nil {
		f.realRoot = real
	}
	return f
}

// load reads the checkout's .sourceignore files and records its links,
// then sets the rules source-controller archives it with.
func (f *Filter) load(ignore string) error {
	var own []rule
	if err := f.walk(f.root, nil, &own); err != nil {
		return err
	}
	own = append(own, readRules([]byte(ignore), nil, f.source+"'s spec.ignore")...)
	f.rules = rules(sourceignore.ExcludeVCS, "source-controller's VCS exclusions")
	if len(own) == 0 {
		// SourceIgnoreFilter: the defaults only when nothing else is said.
		defaults := strings.Join([]string{sourceignore.ExcludeExt, sourceignore.ExcludeCI, sourceignore.ExcludeExtra}, ",")
		own = rules(defaults, "source-controller's default exclusions")
	}
	f.rules = append(f.rules, own...)
	return nil
}

// walk reads the .sourceignore files of dir and below, in the order of
// sourceignore.LoadIgnorePatterns (a directory's own, then its
// subdirectories' in name order, never inside .git), and records the
// symbolic links, which the archive leaves out.
func (f *Filter) walk(dir string, domain []string, out *[]rule) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	// A .sourceignore that is not a file (a directory) holds no patterns,
	// as for ReadIgnoreFile; one that is a link is read through it.
	for _, e := range entries {
		if e.Name() != sourceignore.IgnoreFile || e.IsDir() {
			continue
		}
		if f.pushed != nil && (e.Type()&os.ModeSymlink != 0 || match(f.pushed, append(append([]string(nil), domain...), e.Name()), false) != "") {
			continue // never pushed, so not in the artifact source-controller reads
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			if os.IsNotExist(err) || isDir(filepath.Join(dir, e.Name())) {
				continue // a dangling link, or one to a directory
			}
			return err
		}
		from := strings.Join(append(append([]string(nil), domain...), sourceignore.IgnoreFile), "/")
		*out = append(*out, readRules(data, domain, from)...)
	}
	for _, e := range entries {
		sub := append(append([]string(nil), domain...), e.Name())
		switch {
		case e.Type()&os.ModeSymlink != 0:
			f.symlinks[strings.Join(sub, "/")] = true
		case e.IsDir() && e.Name() != ".git":
			if err := f.walk(filepath.Join(dir, e.Name()), sub, out); err != nil {
				return err
			}
		}
	}
	return nil
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// readRules are the patterns of an ignore file's text, as
// sourceignore.ReadPatterns reads them: a line that starts with "#" or is
// blank is none.
func readRules(text []byte, domain []string, from string) []rule {
	var out []rule
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		s := sc.Text()
		if strings.HasPrefix(s, "#") || strings.TrimSpace(s) == "" {
			continue
		}
		out = append(out, rule{p: gitignore.ParsePattern(s, domain), text: s, from: from})
	}
	return out
}

func rules(list, from string) []rule {
	var out []rule
	for _, s := range strings.Split(list, ",") {
		out = append(out, rule{p: gitignore.ParsePattern(s, nil), text: s, from: from})
	}
	return out
}

// Key tells filters of one checkout apart: the same for the same
// GitRepository and spec.ignore.
func (f *Filter) Key() string { return f.key }

// Source is the source the filter is of, as messages name it.
func (f *Filter) Source() string { return f.source }

// Excluded reports whether path (absolute, in the checkout) is left out of
// the artifact, and why: "" when it is in it, or not in the checkout at
// all. isDir says whether it is a directory, which is in the artifact
// when a pattern leaves it out but a file below it is kept.
func (f *Filter) Excluded(path string, isDir bool) string {
	rel, ok := f.rel(path)
	if !ok || rel == "" {
		return ""
	}
	segs := strings.Split(rel, "/")
	for i := range segs {
		if f.symlinks[strings.Join(segs[:i+1], "/")] {
			return strings.Join(segs[:i+1], "/") + " is a symbolic link (the artifact holds regular files and directories only)"
		}
	}
	why := f.match(segs, isDir)
	if why != "" && isDir && f.holdsKept(filepath.Join(f.root, filepath.FromSlash(rel)), segs) {
		return ""
	}
	return why
}

// match is the rule that leaves segs out: one of the pushed rules, else
// one of the others, the last that matches deciding in each.
func (f *Filter) match(segs []string, isDir bool) string {
	if why := match(f.pushed, segs, isDir); why != "" {
		return why
	}
	return match(f.rules, segs, isDir)
}

// match is the rule of rules that leaves segs out, the last that matches
// deciding.
func match(rules []rule, segs []string, isDir bool) string {
	for i := len(rules) - 1; i >= 0; i-- {
		switch rules[i].p.Match(segs, isDir) {
		case gitignore.Include:
			return ""
		case gitignore.Exclude:
			r := rules[i]
			return "pattern " + quote(r.text) + " of " + r.from
		}
	}
	return ""
}

func quote(s string) string { return `"` + s + `"` }

// holdsKept says whether a file below dir is in the artifact: untarring
// it makes dir though the archive left dir's own entry out.
func (f *Filter) holdsKept(dir string, segs []string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.holdsKeptLocked(dir, segs)
}

func (f *Filter) holdsKeptLocked(dir string, segs []string) bool {
	if kept, ok := f.kept[dir]; ok {
		return kept
	}
	kept := false
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		sub := append(append([]string(nil), segs...), e.Name())
		if f.symlinks[strings.Join(sub, "/")] {
			continue
		}
		if e.IsDir() {
			if e.Name() != ".git" && f.holdsKeptLocked(filepath.Join(dir, e.Name()), sub) {
				kept = true
				break
			}
		} else if e.Type().IsRegular() && f.match(sub, false) == "" {
			kept = true
			break
		}
	}
	f.kept[dir] = kept
	return kept
}

// rel is path from the root, slash-separated, when it is in the
// checkout: from the root as given or from its real path (kustomize
// resolves symbolic links of the directories it builds).
func (f *Filter) rel(path string) (string, bool) {
	path = filepath.Clean(path)
	for _, root := range []string{f.root, f.realRoot} {
		if path == root {
			return "", true
		}
		if rest, ok := strings.CutPrefix(path, root+string(filepath.Separator)); ok {
			return filepath.ToSlash(rest), true
		}
	}
	return "", false
}
