package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/loader/gitrepo"
)

// argocdFlags are --argocd-repo: the URLs by which Argo CD Applications
// may name the repository being checked, beside its origin remote
// (loader/argocd follows the Applications whose sources are this
// repository).
type argocdFlags struct {
	repos []string
}

func (f *argocdFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.repos, "argocd-repo", nil,
		"follow the Argo CD Applications whose source repoURL is `URL`, as well as those naming the checkout's origin remote (repeatable)")
}

// follower follows the Applications of the repository the paths are in.
func (f *argocdFlags) follower(paths []string, in *inputFlags) loader.Follower {
	root := repositoryRoot(paths, in.config.loaded)
	return loader.NewArgoCD(root, rootName(paths, root), f.repos, in.kustomizeRemote)
}

// rootName names the repository root as the first PATH names what it
// holds, so that the files entries build are named like the walk's:
// "." for a run at the root, "../platform" for one beside it.
func rootName(paths []string, root string) string {
	if len(paths) == 0 || paths[0] == "-" {
		return relToCwd(root)
	}
	dir := paths[0]
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		dir = filepath.Dir(dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return relToCwd(root)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	realRoot := root
	if r, err := filepath.EvalSymlinks(root); err == nil {
		realRoot = r
	}
	up, err := filepath.Rel(abs, realRoot)
	if err != nil || (up != "." && up != ".." && !strings.HasPrefix(up, ".."+string(filepath.Separator))) {
		return relToCwd(root) // the PATH is not inside the repository
	}
	return filepath.Join(dir, up)
}

// relToCwd is path from the current directory, or as it is.
func relToCwd(path string) string {
	if rel, err := filepath.Rel(mustGetwd(), path); err == nil {
		return rel
	}
	return path
}

// repositoryRoot is the root Argo CD reads sources' paths from: the
// directory of the repository config file when there is one (a sample
// repository inside another), else the Git top-level of the first PATH,
// else that PATH's directory.
func repositoryRoot(paths []string, cfg *repoConfig) string {
	if cfg != nil {
		return cfg.root
	}
	start := "."
	if len(paths) > 0 && paths[0] != "-" {
		start = paths[0]
	}
	if root, ok := gitrepo.Root(start); ok {
		return root
	}
	if st, err := os.Stat(start); err == nil && !st.IsDir() {
		start = filepath.Dir(start)
	}
	return start
}

// printEntries says, for -v, what became of each entry point, one line
// each: "followed: Application argocd/web -> apps/web/ (3 objects)".
func printEntries(w io.Writer, entries []loader.EntryReport) {
	for _, e := range entries {
		fmt.Fprintln(w, e.String())
	}
}

// entrySummary is the line that counts the entry points without -v, or
// "" when there were none.
func entrySummary(entries []loader.EntryReport) string {
	if len(entries) == 0 {
		return ""
	}
	followed := 0
	for _, e := range entries {
		if e.Followed {
			followed++
		}
	}
	return fmt.Sprintf("contourc: %d entry point(s) followed, %d not followed; -v lists them", followed, len(entries)-followed)
}
