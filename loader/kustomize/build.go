// Package kustomize builds kustomizations with kustomize itself
// (sigs.k8s.io/kustomize/api's krusty), as `kubectl kustomize` does: load
// restrictions rooted at the kustomization, builtin plugins only, no
// exec or legacy plugins. Two things differ, both so that a check of a
// repository neither fetches nor runs anything: remote resources and Helm
// charts are left out of the build (each named in a LeftOut) unless
// Options.Remote is set, and every build asks kustomize for origin
// annotations, from which each built object knows the file it came from;
// those annotations are removed from the objects handed on.
//
// Run builds one kustomization; Tree builds those of a directory walk,
// each kustomization that another one uses only through that one.
package kustomize

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// Kustomize's own annotations, which it adds when buildMetadata asks for
// them and which are not part of the objects a cluster would hold.
const (
	originAnnotation         = "config.kubernetes.io/origin"
	transformationAnnotation = "alpha.config.kubernetes.io/transformations"
)

// IsKustomizationFile reports whether a file name is one kustomize reads
// as a kustomization: kustomization.yaml, kustomization.yml, Kustomization.
func IsKustomizationFile(name string) bool {
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		if name == n {
			return true
		}
	}
	return false
}

// Options tune a build.
type Options struct {
	// Remote lets kustomize fetch remote resources (git repositories,
	// URLs); without it they are left out (--kustomize-remote).
	Remote bool
	// NoLoadRestrictions lets a kustomization read files outside its
	// directory, as Flux's kustomize-controller builds
	// (LoadRestrictionsNone); kubectl kustomize does not.
	NoLoadRestrictions bool
}

// Build is what one kustomization built to.
type Build struct {
	// Dir is the kustomization's directory, absolute and with symbolic
	// links resolved, as kustomize names it.
	Dir       string
	Resources []Resource
	// Read holds every file the build read, by absolute path, as read.
	Read map[string][]byte
	// LeftOut are the entries left out rather than fetched, in the order
	// the build met them.
	LeftOut []LeftOut
	// Deprecations are kustomize's warnings about the kustomization files
	// read (commonLabels, bases...), which it would have printed.
	Deprecations []Deprecation
}

// Resource is one object of a build's output.
type Resource struct {
	APIVersion, Kind, Namespace, Name string
	// Node is the object as kustomize built it, without kustomize's own
	// annotations: handed on as a tree rather than printed and parsed
	// again, which was half of what `kubectl kustomize` spends (its
	// printing goes through JSON). Its lines are not the source's.
	Node   *yaml.Node
	Origin Origin
}

// Origin is where a built object came from, from kustomize's origin
// annotation.
type Origin struct {
	// File is the local file that holds the object's document, absolute;
	// empty for objects from a remote repository or a generator.
	File string
	// Line is the line of the object's document in File (its first
	// key), 0 when not known.
	Line int
	// ConfiguredIn is the file that configures the generator that made
	// the object (a kustomization file, absolute), for generated objects.
	ConfiguredIn string
	// Repo, Ref and Path locate an object fetched from a remote
	// repository.
	Repo, Ref, Path string
}

// NotBuilt is the error of a kustomization that could not be built
// without the entries it left out: it is skipped, not broken.
type NotBuilt struct {
	Dir     string
	LeftOut []LeftOut
	Err     error
}

func (e *NotBuilt) Error() string {
	return fmt.Sprintf("cannot be built without what was left out (%d entr%s): %v", len(e.LeftOut), plural(len(e.LeftOut), "y", "ies"), e.Err)
}

func (e *NotBuilt) Unwrap() error { return e.Err }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Run builds the kustomization in dir on fSys. The Build is returned with
// what was read and left out even when the build fails; the error is a
// *NotBuilt when it failed after entries were left out.
func Run(fSys filesys.FileSystem, dir string, opts Options) (*Build, error) {
	b, fetched, err := run(fSys, dir, opts, false)
	if err != nil || fetched {
		if err == nil {
			return runTracked(fSys, dir, opts)
		}
		return b, err
	}
	idx := indexSources(b.Read)
	for i := range b.Resources {
		r := &b.Resources[i]
		if r.Origin != (Origin{}) {
			// The kustomization asked for origin annotations itself.
			r.Origin.Line = originLine(idx, b, *r)
			continue
		}
		o, ok := idx.infer(*r)
		if !ok {
			return runTracked(fSys, dir, opts)
		}
		r.Origin = o
	}
	return b, nil
}

// runTracked builds with kustomize's origin tracking, for the objects
// whose origin the build's files do not tell for certain.
func runTracked(fSys filesys.FileSystem, dir string, opts Options) (*Build, error) {
	b, _, err := run(fSys, dir, opts, true)
	if err != nil {
		return b, err
	}
	idx := indexSources(b.Read)
	for i := range b.Resources {
		b.Resources[i].Origin.Line = originLine(idx, b, b.Resources[i])
	}
	return b, nil
}

// originLine is the line of an object's document in its origin file.
func originLine(idx sourceIndex, b *Build, r Resource) int {
	if r.Origin.File == "" {
		return 0
	}
	return idx.lineIn(r.Origin.File, b.Read[r.Origin.File], r)
}

// run is one kustomize build, with origin tracking or without; fetched
// says it fetched remote entries.
func run(fSys filesys.FileSystem, dir string, opts Options, track bool) (b *Build, fetched bool, err error) {
	b, err = build(fSys, dir, opts, track, &fetched)
	return b, fetched, err
}

func build(fSys filesys.FileSystem, dir string, opts Options, track bool, fetched *bool) (*Build, error) {
	root, _, err := fSys.CleanedAbs(dir)
	if err != nil {
		return nil, err
	}
	w := &rewriter{fSys: fSys, root: root.String(), remote: opts.Remote, track: track}
	rfs := newRecordingFS(fSys, w.rewrite)
	b := &Build{Dir: root.String(), Read: rfs.read}
	done := quietStderr()
	kopts := krusty.MakeDefaultOptions()
	if opts.NoLoadRestrictions {
		kopts.LoadRestrictions = types.LoadRestrictionsNone
	}
	m, err := krusty.MakeKustomizer(kopts).Run(rfs, b.Dir)
	done()
	b.LeftOut = w.leftOut
	b.Deprecations = deprecations(b.Read)
	*fetched = w.fetched
	if err != nil {
		if len(b.LeftOut) > 0 {
			return b, &NotBuilt{Dir: b.Dir, LeftOut: b.LeftOut, Err: err}
		}
		return b, err
	}
	for _, res := range m.Resources() {
		r, err := resourceOf(res, b.Dir)
		if err != nil {
			return b, err
		}
		b.Resources = append(b.Resources, r)
	}
	return b, nil
}

// resourceOf takes a built object's origin and kustomize's annotations
// off it.
func resourceOf(res *resource.Resource, root string) (Resource, error) {
	o, err := res.GetOrigin()
	if err != nil {
		return Resource{}, fmt.Errorf("%s %s: origin annotation: %w", res.GetKind(), res.GetName(), err)
	}
	for _, key := range []string{originAnnotation, transformationAnnotation} {
		if err := res.PipeE(kyaml.ClearAnnotation(key)); err != nil {
			return Resource{}, err
		}
	}
	if err := kyaml.ClearEmptyAnnotations(&res.RNode); err != nil {
		return Resource{}, err
	}
	r := Resource{APIVersion: res.GetApiVersion(), Kind: res.GetKind(), Namespace: res.GetNamespace(), Name: res.GetName(), Node: res.YNode()}
	if o != nil {
		r.Origin = originOf(*o, root)
	}
	return r, nil
}

// originOf makes kustomize's origin, whose paths are relative to the root
// of the build, absolute.
func originOf(o resource.Origin, root string) Origin {
	if o.Repo != "" {
		return Origin{Repo: o.Repo, Ref: o.Ref, Path: o.Path}
	}
	out := Origin{}
	if o.Path != "" {
		out.File = filepath.Join(root, o.Path)
	}
	if o.ConfiguredIn != "" {
		out.ConfiguredIn = filepath.Join(root, o.ConfiguredIn)
	}
	return out
}

// IsNotBuilt reports whether err says a kustomization was skipped for
// what it left out.
func IsNotBuilt(err error) bool {
	var nb *NotBuilt
	return errors.As(err, &nb)
}

// kustomizationFileNames are the names kustomize looks for, in its order.
func kustomizationFileNames() []string { return konfig.RecognizedKustomizationFileNames() }

// IsKustomization reports whether a kustomization file (by its name) is
// one kustomize builds: its apiVersion is kustomize's or missing. A file
// of that name holding another object, such as a Flux Kustomization
// (kustomize.toolkit.fluxcd.io), is a manifest like any other.
func IsKustomization(data []byte) bool {
	node, err := kyaml.Parse(string(data))
	if err != nil || node.YNode().Kind != kyaml.MappingNode {
		return true // kustomize says what is wrong with it
	}
	v := node.GetApiVersion()
	return v == "" || strings.HasPrefix(v, "kustomize.config.k8s.io/")
}
