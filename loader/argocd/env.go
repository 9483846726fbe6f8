package argocd

import "os"

// Env is Argo CD's build environment of a source (reposerver: newEnv),
// which it substitutes into helm parameters, kustomize images and label
// values. ARGOCD_APP_REVISION and its short forms are the commit Argo CD
// synced, which a checkout does not say for certain: they are empty
// unless the caller sets them.
type Env map[string]string

// BuildEnv is the environment Argo CD gives source i of app.
func BuildEnv(app *Application, i int) Env {
	src := app.AllSources()[i]
	return Env{
		"ARGOCD_APP_NAME":                   app.Metadata.Name,
		"ARGOCD_APP_NAMESPACE":              app.Spec.Destination.Namespace,
		"ARGOCD_APP_PROJECT_NAME":           app.Spec.Project,
		"ARGOCD_APP_SOURCE_REPO_URL":        src.RepoURL,
		"ARGOCD_APP_SOURCE_PATH":            src.Path,
		"ARGOCD_APP_SOURCE_TARGET_REVISION": src.TargetRevision,
	}
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
