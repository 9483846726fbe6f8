package argocd

import (
	"os"

	"github.com/contourc/contourc/loader/gitrepo"
)

// Env is Argo CD's build environment of a source (reposerver: newEnv),
// which it substitutes into helm parameters, kustomize images and label
// values.
type Env map[string]string

// BuildEnv is the environment Argo CD gives source i of app, whose
// checkout is at repoRoot. ARGOCD_APP_REVISION and its short forms
// (7 and 8 characters) are the commit Argo CD resolved targetRevision to:
// targetRevision itself when it is a full commit id, else the commit the
// checkout has at HEAD, which is what Argo CD syncs when the Application
// tracks the branch checked out, read from .git without the git binary;
// empty when neither can be told. KUBE_VERSION and KUBE_API_VERSIONS are
// only given to config management plugins, which contourc does not run.
func BuildEnv(app *Application, i int, repoRoot string) Env {
	src := app.AllSources()[i]
	rev := revision(src.TargetRevision, repoRoot)
	return Env{
		"ARGOCD_APP_NAME":                   app.Metadata.Name,
		"ARGOCD_APP_NAMESPACE":              app.Spec.Destination.Namespace,
		"ARGOCD_APP_PROJECT_NAME":           app.Spec.Project,
		"ARGOCD_APP_REVISION":               rev,
		"ARGOCD_APP_REVISION_SHORT":         shorten(rev, 7),
		"ARGOCD_APP_REVISION_SHORT_8":       shorten(rev, 8),
		"ARGOCD_APP_SOURCE_REPO_URL":        src.RepoURL,
		"ARGOCD_APP_SOURCE_PATH":            src.Path,
		"ARGOCD_APP_SOURCE_TARGET_REVISION": src.TargetRevision,
	}
}

// revision is the commit a source's targetRevision stands for, as well as
// the checkout at repoRoot tells it.
func revision(target, repoRoot string) string {
	if gitrepo.IsCommitID(target) {
		return target
	}
	root, ok := gitrepo.Root(repoRoot)
	if !ok {
		return ""
	}
	head, _ := gitrepo.Head(root)
	return head
}

// shorten is rev's first n characters, as Argo CD's shortenRevision.
func shorten(rev string, n int) string {
	if len(rev) > n {
		return rev[:n]
	}
	return rev
}

// Expand substitutes $VAR and ${VAR} as Argo CD does (os.Expand): an
// unknown variable is empty, and $$ is a $.
func (e Env) Expand(s string) string {
	return os.Expand(s, func(name string) string {
		if name == "$" {
			return "$"
		}
		return e[name]
	})
}
