// Package flux follows Flux's entry points the way Flux's controllers
// apply them: a kustomize.toolkit.fluxcd.io Kustomization of this
// repository is built from its spec.path as kustomize-controller builds it
// from the GitRepository's artifact (the checkout less what
// source-controller's ignore rules leave out, loader/flux/artifact), with
// fluxcd/pkg/kustomize's generator, then kustomize with no load
// restrictions, then post-build substitution, and a helm.toolkit.fluxcd.io
// HelmRelease whose chart is a path of this repository is rendered as
// helm-controller renders it (loader/helmchart). "This repository" is a
// GitRepository whose spec.url is the checkout's origin remote,
// flux-system/flux-system (what `flux bootstrap` creates), or one named in
// Options.Sources; a Kustomization of an OCIRepository named there with
// the directory its artifact is pushed from is built from that directory
// as the artifact has it (oci.go). Entries of other sources are not
// followed, and say so.
package flux

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/loader/flux/artifact"
	"github.com/contourc/contourc/loader/gitrepo"
)

// Options tune the follower.
type Options struct {
	// Sources are the sources that are this repository whatever their
	// URL (--flux-source), as ParseSource reads them: GitRepositories as
	// NAMESPACE/NAME or GitRepository/NAMESPACE/NAME, OCIRepositories as
	// OCIRepository/NAMESPACE/NAME=DIR. Those it cannot read are left
	// out (the caller says they are wrong).
	Sources []string
	// KustomizeRemote lets builds fetch remote resources
	// (--kustomize-remote).
	KustomizeRemote bool
}

// bootstrapSource is the GitRepository `flux bootstrap` creates for the
// repository it writes to.
const bootstrapSource = "flux-system/flux-system"

// Follower follows Flux Kustomizations and HelmReleases.
type Follower struct {
	opts    Options
	sources []Source // opts.Sources, read

	mu        sync.Mutex
	artifacts map[string]*artifact.Filter // by checkout, source and spec.ignore
	composed  map[string]*external        // ExternalArtifacts, by what composes them
}

// New is a Follower with opts.
func New(opts Options) *Follower {
	f := &Follower{opts: opts}
	for _, s := range opts.Sources {
		if src, err := ParseSource(s); err == nil {
			f.sources = append(f.sources, src)
		}
	}
	return f
}

// Entries are the Kustomizations and HelmReleases among objs.
func (f *Follower) Entries(in *loader.FollowInput, objs []loader.Object) []loader.Entry {
	var out []loader.Entry
	for _, o := range objs {
		u, ok := o.Obj.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		group, version, _ := strings.Cut(o.APIVersion, "/")
		switch {
		case group == "kustomize.toolkit.fluxcd.io" && o.Kind == "Kustomization":
			out = append(out, f.kustomization(in, o, u, version))
		case group == "helm.toolkit.fluxcd.io" && o.Kind == "HelmRelease":
			out = append(out, f.helmRelease(in, o, u))
		}
	}
	return out
}

// notFollowed is an entry that is not followed, for why.
func notFollowed(o loader.Object, why string) loader.Entry {
	return loader.Entry{Object: o, NotFollowed: why}
}

// sourceRef is an object's reference to its source.
type sourceRef struct{ kind, namespace, name string }

func (r sourceRef) String() string { return r.kind + " " + r.namespace + "/" + r.name }

// readSourceRef reads the reference at fields of u; its namespace is u's
// when it names none, as Flux's controllers take it.
func readSourceRef(u *unstructured.Unstructured, defaultKind string, fields ...string) (sourceRef, bool) {
	m, ok, _ := unstructured.NestedMap(u.Object, fields...)
	if !ok {
		return sourceRef{}, false
	}
	ref := sourceRef{kind: str(m, "kind"), namespace: str(m, "namespace"), name: str(m, "name")}
	if ref.kind == "" {
		ref.kind = defaultKind
	}
	if ref.namespace == "" {
		ref.namespace = u.GetNamespace()
	}
	return ref, ref.name != ""
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// checkout is the repository an entry point lies in: its root and origin.
type checkout struct {
	root, origin string
}

// checkoutOf is the checkout that holds o's file.
func checkoutOf(o loader.Object) (checkout, bool) {
	root, ok := gitrepo.Root(o.Source.File)
	if !ok {
		return checkout{}, false
	}
	origin, _ := gitrepo.OriginURL(root)
	return checkout{root: root, origin: origin}, true
}

// thisRepository says whether ref names this repository, and why not
// when it does not.
func (f *Follower) thisRepository(in *loader.FollowInput, ref sourceRef, co checkout) (bool, string) {
	switch ref.kind {
	case GitRepository:
	case OCIRepository:
		return false, "source " + ref.String() + " is not this repository (name it, and the directory its artifact is pushed from, with --flux-source OCIRepository/" + ref.namespace + "/" + ref.name + "=DIR)"
	default:
		return false, "source " + ref.String() + " is not this repository"
	}
	if _, named := f.named(ref); named || ref.namespace+"/"+ref.name == bootstrapSource {
		return true, ""
	}
	src, ok := in.Find("GitRepository", ref.namespace, ref.name)
	if !ok {
		return false, "source " + ref.String() + " is not this repository (not in the input; name it with --flux-source)"
	}
	url, _, _ := unstructured.NestedString(src.Obj.(*unstructured.Unstructured).Object, "spec", "url")
	if co.origin != "" && gitrepo.Same(url, co.origin) {
		return true, ""
	}
	return false, "source " + ref.String() + " is not this repository"
}

// inRepository is path (of a spec, from the repository root) as a
// directory of the checkout, or why it is not one.
func inRepository(co checkout, path string) (string, string) {
	dir := filepath.Join(co.root, filepath.FromSlash(path))
	rel, err := filepath.Rel(co.root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", "path " + path + " is outside the repository"
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", "path " + path + " is not a directory of this repository"
	}
	return dir, ""
}

// display is an absolute path as contourc names files: from the working
// directory when under it.
func display(abs string) string {
	wd, err := os.Getwd()
	if err != nil {
		return abs
	}
	if rel, err := filepath.Rel(wd, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return abs
}

// repoPath is dir as a path from the repository root, with a trailing
// slash, as -v names what an entry built ("apps/web/").
func repoPath(co checkout, dir string) string {
	rel, err := filepath.Rel(co.root, dir)
	if err != nil || rel == "." {
		return "./"
	}
	return filepath.ToSlash(rel) + "/"
}
