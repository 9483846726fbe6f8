package flux

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/loader/flux/artifact"
)

// oci.go: the sources named as this repository (--flux-source), and
// Kustomizations of an OCIRepository named so with the directory its
// artifact is pushed from (`flux push artifact --path=DIR`, as Flux
// Operator's and "gitless GitOps" layouts have CI do). contourc cannot
// know which directory was pushed, so the user says it. The artifact is
// DIR as the CLI pushes it and source-controller stores it
// (artifact.LoadPushed), seen on the read-only view of composed artifacts
// (externalfs.go): spec.path is taken in it, nothing else of the checkout
// is there, and objects point at the checkout's files.

// Source is a source named as this repository.
type Source struct {
	Kind, Namespace, Name string
	// Dir is the directory of the repository, slash-separated from its
	// root ("." for the root), that an OCIRepository's artifact is pushed
	// from; a GitRepository's is the root.
	Dir string
}

// Source kinds that may be named.
const (
	GitRepository = "GitRepository"
	OCIRepository = "OCIRepository"
)

// ParseSource reads a --flux-source value: NAMESPACE/NAME (a
// GitRepository), or KIND/NAMESPACE/NAME[=DIR] with KIND GitRepository
// (no DIR) or OCIRepository (DIR from the repository's root, the root
// when left out). Its errors say what was wanted, for the flag's message.
func ParseSource(s string) (Source, error) {
	spec, dir, hasDir := strings.Cut(s, "=")
	parts := strings.Split(spec, "/")
	src := Source{Kind: GitRepository, Dir: "."}
	switch len(parts) {
	case 2:
		src.Namespace, src.Name = parts[0], parts[1]
	case 3:
		src.Kind, src.Namespace, src.Name = parts[0], parts[1], parts[2]
	}
	if src.Namespace == "" || src.Name == "" || src.Kind == "" {
		return Source{}, fmt.Errorf("want NAMESPACE/NAME or KIND/NAMESPACE/NAME[=DIR]")
	}
	switch {
	case src.Kind != GitRepository && src.Kind != OCIRepository:
		return Source{}, fmt.Errorf("kind %q: want GitRepository or OCIRepository", src.Kind)
	case hasDir && src.Kind == GitRepository:
		return Source{}, fmt.Errorf("a GitRepository is the repository's root: want GitRepository/NAMESPACE/NAME without =DIR")
	case hasDir && dir == "":
		return Source{}, fmt.Errorf("want a DIR after =")
	case hasDir:
		clean := path.Clean(filepath.ToSlash(dir))
		if path.IsAbs(clean) || filepath.IsAbs(dir) || clean == ".." || strings.HasPrefix(clean, "../") {
			return Source{}, fmt.Errorf("DIR %q: want a directory from the repository's root", dir)
		}
		src.Dir = clean
	}
	return src, nil
}

// named is the source named for ref, if one is.
func (f *Follower) named(ref sourceRef) (Source, bool) {
	for _, s := range f.sources {
		if s.Kind == ref.kind && s.Namespace == ref.namespace && s.Name == ref.name {
			return s, true
		}
	}
	return Source{}, false
}

// pushedOf is the filter of the artifact of the OCIRepository ref, named
// as src, and the directory of the checkout co it is pushed from, read
// once per run; or why it is not followed.
func (f *Follower) pushedOf(in *loader.FollowInput, ref sourceRef, src Source, co checkout) (*artifact.Filter, string, string) {
	dir, why := inRepository(co, src.Dir)
	if why != "" {
		return nil, "", ref.String() + " is pushed from " + src.Dir + " (--flux-source), which is not a directory of this repository"
	}
	dir = realPath(dir)
	var ignore, operation string
	if o, ok := in.Find(OCIRepository, ref.namespace, ref.name); ok {
		if u, ok := o.Obj.(*unstructured.Unstructured); ok {
			ignore, _, _ = unstructured.NestedString(u.Object, "spec", "ignore")
			operation, _, _ = unstructured.NestedString(u.Object, "spec", "layerSelector", "operation")
		}
	}
	stored := operation != "copy"
	key := "pushed\x00" + dir + "\x00" + ref.String() + "\x00" + ignore + "\x00" + fmt.Sprint(stored)
	f.mu.Lock()
	defer f.mu.Unlock()
	if a, ok := f.artifacts[key]; ok {
		return a, dir, ""
	}
	a, err := artifact.LoadPushed(dir, ref.String(), ignore, stored)
	if err != nil {
		return nil, "", fmt.Sprintf("source %s: failed to load source ignore patterns from the directory it is pushed from: %v", ref, err)
	}
	if f.artifacts == nil {
		f.artifacts = map[string]*artifact.Filter{}
	}
	f.artifacts[key] = a
	return a, dir, ""
}

// ociArtifact is the artifact of the OCIRepository ref, named as src, as
// a composed tree at a view root of its own; or why it is not followed.
func (f *Follower) ociArtifact(in *loader.FollowInput, ref sourceRef, src Source, co checkout) (*external, string) {
	filter, _, why := f.pushedOf(in, ref, src, co)
	if why != "" {
		return nil, why
	}
	key := "oci\x00" + filter.Key()
	f.mu.Lock()
	defer f.mu.Unlock()
	if ext, ok := f.composed[key]; ok {
		return ext, ""
	}
	tree, err := artifact.Tree(filter)
	if err != nil {
		return nil, fmt.Sprintf("source %s: reading the directory it is pushed from: %v", ref, err)
	}
	root := realPath(co.root)
	ext := &external{label: ref.String(), root: filepath.Join(root, ".contourc-OCIRepository", ref.namespace, ref.name), art: tree, key: key}
	if f.composed == nil {
		f.composed = map[string]*external{}
	}
	f.composed[key] = ext
	return ext, ""
}

// ociKustomization is the entry of a Kustomization whose source is the
// OCIRepository ref, named as src.
func (f *Follower) ociKustomization(in *loader.FollowInput, o loader.Object, u *unstructured.Unstructured, ref sourceRef, src Source, co checkout) loader.Entry {
	ext, why := f.ociArtifact(in, ref, src, co)
	if why != "" {
		return notFollowed(o, why)
	}
	return f.viewKustomization(in, o, u, co, ext)
}
