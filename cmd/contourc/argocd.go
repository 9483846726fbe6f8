package main

import "github.com/spf13/pflag"

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
