package argocd

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/contourc/contourc/loader/helmchart"
	"github.com/contourc/contourc/loader/kustomize"
)

// plan.go: what following an Application means for each of its sources.

// ThisRepo reports whether a source's repoURL is the repository being
// checked (its origin remote, or one named with --argocd-repo).
type ThisRepo func(repoURL string) bool

// SourcePlan is one source of an Application and how it is followed, or
// why it is not.
type SourcePlan struct {
	// Index is the source's place in AllSources; Label names it in
	// messages ("" for spec.source).
	Index int
	Label string
	// Source is the source with the overrides of the repository's
	// .argocd-source.yaml files merged in.
	Source Source
	Type   Type
	// Path is the source's path, cleaned, relative to the repository
	// root ("." for the root); Dir the same directory on disk.
	Path, Dir string
	// Namespace is the namespace of its namespaced objects that have none:
	// the destination's.
	Namespace string
	Env       Env
	// Files and Skipped are a directory source's files to read and those
	// it leaves out.
	Files   []string
	Skipped []Skipped
	// Helm are a helm source's template options.
	Helm helmchart.Options
	// Warnings name options that contourc does not apply.
	Warnings []string
	// NotFollowed says why the source is not followed; RefOnly sources
	// (which only lend files to the others) are not followed and say so.
	NotFollowed string
	RefOnly     bool
}

// Followed reports whether the source is followed.
func (s *SourcePlan) Followed() bool { return s.NotFollowed == "" }

// Plan plans every source of app against the checkout at repoRoot.
func Plan(app *Application, repoRoot string, thisRepo ThisRepo) []SourcePlan {
	sources := app.AllSources()
	if len(sources) == 0 {
		return []SourcePlan{{Index: -1, NotFollowed: "it has no source"}}
	}
	if len(app.Spec.SourceHydrator) > 0 {
		return []SourcePlan{{Index: -1, NotFollowed: "it uses the source hydrator, whose hydrated manifests are not in this checkout"}}
	}
	refs := refSources(sources, repoRoot, thisRepo)
	out := make([]SourcePlan, len(sources))
	for i := range sources {
		out[i] = planSource(app, i, repoRoot, thisRepo, refs)
	}
	return out
}

// refSources are the sources with a ref, by "$ref".
func refSources(sources []Source, repoRoot string, thisRepo ThisRepo) Refs {
	refs := Refs{}
	for _, s := range sources {
		if s.Ref == "" {
			continue
		}
		r := RefSource{RepoURL: s.RepoURL}
		if thisRepo(s.RepoURL) {
			r.Root = repoRoot
		}
		refs["$"+s.Ref] = r
	}
	return refs
}

func planSource(app *Application, i int, repoRoot string, thisRepo ThisRepo, refs Refs) SourcePlan {
	src := app.AllSources()[i]
	p := SourcePlan{Index: i, Label: app.Label(i), Source: src, Namespace: app.Spec.Destination.Namespace, Env: BuildEnv(app, i, repoRoot)}
	switch {
	case src.RefOnly(app.Multiple()):
		p.RefOnly = true
		p.NotFollowed = fmt.Sprintf("ref %q only lends its files to the other sources", src.Ref)
		return p
	case strings.HasPrefix(src.RepoURL, "oci://"):
		p.NotFollowed = "an OCI artifact of " + src.RepoURL + ", which contourc does not fetch"
		return p
	case src.Chart != "":
		p.NotFollowed = fmt.Sprintf("chart %s from a remote repository (%s)", src.Chart, src.RepoURL)
		return p
	case !thisRepo(src.RepoURL):
		p.NotFollowed = "repoURL " + src.RepoURL + " is not this repository"
		return p
	}
	dir, err := appPath(repoRoot, src.Path)
	if err != nil {
		p.NotFollowed = err.Error()
		return p
	}
	p.Dir = dir
	p.Path = filepath.Clean(src.Path)
	if err := mergeOverrides(&p.Source, dir, app.Metadata.Name); err != nil {
		p.NotFollowed = "error while parsing source parameters: " + err.Error()
		return p
	}
	if p.Type, err = sourceType(p.Source, dir); err != nil {
		p.NotFollowed = err.Error()
		return p
	}
	p.NotFollowed = p.prepare(app, repoRoot, refs)
	return p
}

// prepare readies a source of this repository by its type; the reason
// it cannot be followed, if any.
func (p *SourcePlan) prepare(app *Application, repoRoot string, refs Refs) string {
	switch p.Type {
	case TypePlugin:
		return "a config management plugin source, which contourc cannot run"
	case TypeDirectory:
		d := Directory{}
		if p.Source.Directory != nil {
			d = *p.Source.Directory
		}
		files, skipped, err := DirectoryFiles(p.Dir, repoRoot, d)
		if err != nil {
			return err.Error()
		}
		p.Files, p.Skipped = files, skipped
	case TypeHelm:
		if !helmchart.IsChart(p.Dir) {
			return "helm source at " + p.Path + " holds no Chart.yaml"
		}
		withOverrides := *app
		if app.Multiple() {
			withOverrides.Spec.Sources = append([]Source(nil), app.Spec.Sources...)
			withOverrides.Spec.Sources[p.Index] = p.Source
		} else {
			withOverrides.Spec.Source = &p.Source
		}
		opts, warnings, err := HelmOptions(&withOverrides, p.Index, p.Dir, repoRoot, refs)
		if err != nil {
			return err.Error()
		}
		p.Helm, p.Warnings = opts, warnings
	}
	return ""
}

// appPath is a source's path in the checkout, as Argo CD requires it: a
// relative path to a directory inside the repository.
func appPath(root, path string) (string, error) {
	if filepath.IsAbs(path) {
		return "", fmt.Errorf("%s: app path is absolute", path)
	}
	dir := filepath.Join(root, path)
	if !inside(dir, root) {
		return "", fmt.Errorf("%s: app path outside root", path)
	}
	st, err := os.Stat(dir)
	switch {
	case os.IsNotExist(err):
		return "", fmt.Errorf("%s: app path does not exist", path)
	case err != nil:
		return "", err
	case !st.IsDir():
		return "", fmt.Errorf("%s: app path is not a directory", path)
	}
	return dir, nil
}

// sourceType is the source's explicit type, or the one Argo CD discovers
// from the files at its path (util/app/discovery): Kustomize when it
// holds a kustomization file, Helm when it holds a file whose name ends
// in Chart.yaml, the last of them in lexical order deciding; Directory
// otherwise.
func sourceType(src Source, dir string) (Type, error) {
	t, err := src.ExplicitType()
	if err != nil || t != "" {
		return t, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	t = TypeDirectory
	for _, n := range names {
		if strings.HasSuffix(n, "Chart.yaml") {
			t = TypeHelm
		}
		if kustomize.IsKustomizationFile(n) {
			t = TypeKustomize
		}
	}
	return t, nil
}
