package loader

// GitOps objects are the objects by which Flux and Argo CD say what a
// cluster applies: Flux's Kustomizations, sources and HelmReleases, Argo
// CD's Applications and ApplicationSets. They are not Contour's kinds and
// were skipped; they are kept, undecoded beyond JSON as secret sources
// are, for the followers loader/follow asks, and handed out in Result.GitOps
// (or, without Options.Follow, counted as skipped as before).

// gitOpsGroups are the API groups of GitOps objects: every kind and
// version of each is kept, since a follower reads only a few fields.
var gitOpsGroups = map[string]bool{
	"kustomize.toolkit.fluxcd.io": true,
	"source.toolkit.fluxcd.io":    true,
	"helm.toolkit.fluxcd.io":      true,
	"source.extensions.fluxcd.io": true, // source-watcher's ArtifactGenerators
	"argoproj.io":                 true,
}

// isGitOpsRaw reports whether raw is kept as a GitOps object.
func isGitOpsRaw(raw rawObject) bool {
	group, _ := splitAPIVersion(raw.apiVersion)
	return gitOpsGroups[group]
}

// IsGitOps reports whether o is a GitOps object.
func IsGitOps(o Object) bool {
	group, _ := splitAPIVersion(o.APIVersion)
	return gitOpsGroups[group] && isSecretSourceObject(o)
}

// appendGitOps appends the GitOps objects of objs to out.
func appendGitOps(out, objs []Object) []Object {
	for _, o := range objs {
		if IsGitOps(o) {
			out = append(out, o)
		}
	}
	return out
}
