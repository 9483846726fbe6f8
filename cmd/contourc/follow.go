package main

// Following GitOps entry points (loader/follow): the flags that say
// which sources are this repository, and what -v and the summary line say
// of each entry point.

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/loader/argocd"
	"github.com/contourc/contourc/loader/flux"
)

// followFlags are the flags of following.
type followFlags struct {
	fluxSources []string
	argocdRepos []string
	// configRoot is the directory of the repository config file read for
	// the run, if any: the root from which Argo CD sources' paths are
	// read (a sample repository inside another has no .git of its own).
	configRoot string
}

func (f *followFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.fluxSources, "flux-source", nil,
		"the Flux source `[KIND/]NAMESPACE/NAME[=DIR]` is this repository: a GitRepository (the default KIND) whatever its url, an OCIRepository as its artifact pushed from DIR (from the repository's root; flux push artifact --path); their Kustomizations and HelmReleases are followed (repeatable; flux-system/flux-system and GitRepositories whose url is the origin remote's are)")
	fs.StringArrayVar(&f.argocdRepos, "argocd-repo", nil,
		"the Argo CD Applications whose source repoURL is `URL` are of this repository, as well as those naming the checkout's origin remote (repeatable)")
}

func (f *followFlags) check() error {
	for _, s := range f.fluxSources {
		if _, err := flux.ParseSource(s); err != nil {
			return fmt.Errorf("--flux-source %q: %v", s, err)
		}
	}
	return nil
}

// follow is how the loader follows entry points; cluster are the objects
// of the cluster context, which entries may read.
func (f *followFlags) follow(base loader.Options, cluster []loader.Object) *loader.Follow {
	return &loader.Follow{
		Followers: []loader.Follower{
			flux.New(flux.Options{Sources: f.fluxSources, KustomizeRemote: base.KustomizeRemote}),
			argocd.New(argocd.Options{Root: f.configRoot, Repos: f.argocdRepos, KustomizeRemote: base.KustomizeRemote}),
		},
		Cluster: cluster,
	}
}

// printEntries says, for -v, what became of each entry point, one line
// each: "followed: Kustomization flux-system/apps -> apps/ (12 objects)".
func printEntries(w io.Writer, entries []loader.EntryReport) {
	for _, e := range entries {
		fmt.Fprintln(w, e.String())
	}
}

// entrySummary is the line that counts the entry points without -v, or
// "" when there were none: "contourc: 3 entry point(s) followed, 1 not
// followed; -v lists them".
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
