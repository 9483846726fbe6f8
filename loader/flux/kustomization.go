package flux

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/loader/engines"
	"github.com/contourc/contourc/loader/flux/artifact"
	"github.com/contourc/contourc/loader/kustomize"
)

// kustomization is the entry of a Flux Kustomization: followed when its
// source is this repository, built from spec.path with its options.
func (f *Follower) kustomization(in *loader.FollowInput, o loader.Object, u *unstructured.Unstructured, version string) loader.Entry {
	if version != "v1" && version != "v1beta2" {
		return notFollowed(o, "apiVersion "+o.APIVersion+" is not read (kustomize.toolkit.fluxcd.io/v1 and v1beta2 are)")
	}
	if suspended, _, _ := unstructured.NestedBool(u.Object, "spec", "suspend"); suspended {
		return notFollowed(o, "spec.suspend is true: Flux applies nothing of it")
	}
	ref, ok := readSourceRef(u, "", "spec", "sourceRef")
	if !ok {
		return notFollowed(o, "spec.sourceRef names no source")
	}
	co, ok := checkoutOf(o)
	if !ok {
		return notFollowed(o, "no git repository holds "+o.Source.File+", so no source is this repository")
	}
	if ref.kind == "ExternalArtifact" {
		return f.externalKustomization(in, o, u, ref, co)
	}
	if src, ok := f.named(ref); ok && ref.kind == OCIRepository {
		return f.ociKustomization(in, o, u, ref, src, co)
	}
	if ok, why := f.thisRepository(in, ref, co); !ok {
		return notFollowed(o, why)
	}
	path, _, _ := unstructured.NestedString(u.Object, "spec", "path")
	if path == "" {
		path = "./"
	}
	dir, why := inRepository(co, path)
	if why != "" {
		return notFollowed(o, why)
	}
	art, err := f.artifactOf(in, ref, co)
	if err != nil {
		return notFollowed(o, err.Error())
	}
	if why := art.Excluded(dir, true); why != "" {
		return notFollowed(o, "path "+path+" is not in the artifact of "+art.Source()+": "+why)
	}
	sub, why := substitution(in, u)
	if why != "" {
		return notFollowed(o, why)
	}
	spec, _, _ := unstructured.NestedMap(u.Object, "spec")
	key, _ := json.Marshal(buildKey{Dir: dir, Spec: buildOptions(spec), Vars: sub.vars, Artifact: art.Key()})
	return loader.Entry{
		Object: o,
		Key:    "flux-kustomization " + string(key),
		Path:   repoPath(co, dir),
		Covers: []string{realPath(dir)},
		Build:  func() (*loader.Built, error) { return f.build(co, art, dir, u, sub.s) },
	}
}

// buildKey is what makes two Kustomizations build the same: the directory
// and the options of the spec that change the build.
type buildKey struct {
	Dir  string
	Spec map[string]any
	Vars map[string]string
	// Artifact says which artifact the build reads.
	Artifact string
}

// buildFields are the fields of a Kustomization's spec that change what
// is built; the others (interval, prune, wait, sourceRef...) do not.
var buildFields = []string{"targetNamespace", "namePrefix", "nameSuffix", "patches", "patchesStrategicMerge", "patchesJson6902", "images", "components", "commonMetadata", "postBuild"}

func buildOptions(spec map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range buildFields {
		if v, ok := spec[k]; ok {
			out[k] = v
		}
	}
	return out
}

// build builds dir as kustomize-controller does: Flux's generator writes
// the Kustomization's options into the directory's kustomization
// (generating one listing the directory's manifests when there is none),
// which kustomize then builds; here the generated file is handed to the
// build in memory rather than written. Both see the repository as the
// artifact has it: the listing is made here over the artifact and the
// generator given it (or the kustomization file the artifact holds, when
// the disk has another first), and the build's file system hides what the
// artifact lacks. The generator runs in the contourc-engines program
// (loader/flux/fluxgen says why).
func (f *Follower) build(co checkout, art *artifact.Filter, dir string, u *unstructured.Unstructured, sub *loader.Substitution) (*loader.Built, error) {
	req, err := generateRequest(co, art, dir, u)
	if err != nil {
		return nil, fmt.Errorf("kustomization generation failed: %w", err)
	}
	var gen engines.FluxGenerated
	if err := engines.Call(engines.OpFluxGenerate, req, &gen); err != nil {
		return nil, fmt.Errorf("kustomization generation failed: %w", err)
	}
	fs := &generatedFS{FileSystem: filesys.MakeFsOnDisk(), path: gen.File, data: gen.Data, art: art}
	b, err := kustomize.Run(fs, dir, kustomize.Options{Remote: f.opts.KustomizeRemote, NoLoadRestrictions: true})
	return &loader.Built{
		Kustomize:  &kustomize.Result{Dir: display(dir), Build: b, Err: err},
		Substitute: sub,
	}, nil
}

// generateRequest asks the generator for dir's kustomization as the
// artifact has dir: the directory's own file when the generator would
// find it on disk too, else the one the artifact holds, else the listing
// of its manifests.
func generateRequest(co checkout, art *artifact.Filter, dir string, u *unstructured.Unstructured) (engines.FluxGenerateRequest, error) {
	present := func(p string) bool { _, err := os.Stat(p); return err == nil && art.Excluded(p, true) == "" }
	obj, err := presentComponents(u, dir, present).MarshalJSON()
	if err != nil {
		return engines.FluxGenerateRequest{}, err
	}
	req := engines.FluxGenerateRequest{Root: co.root, Dir: dir, Kustomization: obj}
	inArtifact, onDisk := kustomizationFile(art, dir)
	switch {
	case inArtifact != "" && inArtifact == onDisk:
		return req, nil
	case inArtifact != "":
		data, err := os.ReadFile(inArtifact)
		if err != nil {
			return req, err
		}
		req.Base = &engines.FluxBase{File: inArtifact, Data: data}
		return req, nil
	}
	resources, err := scanManifests(art, dir)
	if err != nil {
		return req, err
	}
	req.Base = &engines.FluxBase{File: filepath.Join(dir, konfig.DefaultKustomizationFileName()), Listed: true, Resources: resources}
	return req, nil
}

// realPath is path absolute with symbolic links resolved, as the loader
// compares covered directories.
func realPath(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}
