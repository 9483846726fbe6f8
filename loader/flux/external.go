package flux

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/loader/engines"
	"github.com/contourc/contourc/loader/flux/artifact"
	"github.com/contourc/contourc/loader/kustomize"
)

// external.go: Kustomizations of an ExternalArtifact that an
// ArtifactGenerator (source-watcher, source.extensions.fluxcd.io) of the
// input composes from sources that are this repository. source-watcher
// names the ExternalArtifact after the artifact, in the generator's
// namespace; it fetches each source's artifact (a GitRepository's is the
// checkout as loader/flux/artifact has it), applies the artifact's copy
// operations and archives the result (artifact.Compose). The
// Kustomization's spec.path is then taken in that artifact and built as
// any other, from a view of it (viewFS): nothing is copied or written.

// generatorGroup is source-watcher's API group.
const generatorGroup = "source.extensions.fluxcd.io"

// external is one composed ExternalArtifact.
type external struct {
	label string // "ExternalArtifact NS/NAME"
	root  string // where the view puts it
	art   *artifact.Composed
	key   string
}

// externalKustomization is the entry of a Kustomization whose source is
// the ExternalArtifact ref.
func (f *Follower) externalKustomization(in *loader.FollowInput, o loader.Object, u *unstructured.Unstructured, ref sourceRef, co checkout) loader.Entry {
	ext, why := f.externalArtifact(in, ref, co)
	if why != "" {
		return notFollowed(o, why)
	}
	return f.viewKustomization(in, o, u, co, ext)
}

// viewKustomization is the entry of a Kustomization of the artifact ext,
// seen on a view (an ExternalArtifact, or an OCIRepository pushed from a
// directory of the checkout): spec.path is taken in it.
func (f *Follower) viewKustomization(in *loader.FollowInput, o loader.Object, u *unstructured.Unstructured, co checkout, ext *external) loader.Entry {
	p, _, _ := unstructured.NestedString(u.Object, "spec", "path")
	if c := path.Clean("/" + filepath.ToSlash(p)); strings.HasPrefix(path.Clean(filepath.ToSlash(p)), "..") {
		return notFollowed(o, "path "+p+" is outside "+ext.label)
	} else if p = strings.TrimPrefix(c, "/"); !ext.art.IsDir(p) {
		if why := ext.art.LeftOut(p); why != "" {
			return notFollowed(o, "path ./"+p+" is not in "+ext.label+": "+why)
		}
		return notFollowed(o, "path ./"+p+" is not a directory of "+ext.label)
	}
	dir := filepath.Join(ext.root, filepath.FromSlash(p))
	sub, why := substitution(in, u)
	if why != "" {
		return notFollowed(o, why)
	}
	spec, _, _ := unstructured.NestedMap(u.Object, "spec")
	key, _ := json.Marshal(buildKey{Dir: dir, Spec: buildOptions(spec), Vars: sub.vars, Artifact: ext.key})
	shown := strings.TrimSuffix(p, "/") + "/"
	if p == "" {
		shown = "./"
	}
	e := loader.Entry{
		Object: o,
		Key:    "flux-kustomization " + string(key),
		Path:   shown + " of " + ext.label,
		Build:  func() (*loader.Built, error) { return f.buildExternal(co, ext, dir, u, sub.s) },
	}
	if real := ext.art.Dir(p); real != "" {
		e.Covers = []string{realPath(real)}
	}
	return e
}

// externalArtifact is the ExternalArtifact ref composed, or why it is not
// followed.
func (f *Follower) externalArtifact(in *loader.FollowInput, ref sourceRef, co checkout) (*external, string) {
	label := "ExternalArtifact " + ref.namespace + "/" + ref.name
	gen, spec, why := findGenerator(in, ref)
	if why != "" {
		return nil, why
	}
	genName := "ArtifactGenerator " + ref.namespace + "/" + gen.GetName()
	var ops []artifact.Copy
	if err := remarshal(spec["copy"], &ops); err != nil {
		return nil, genName + ": artifact " + ref.name + ": spec.artifacts[].copy: " + err.Error()
	}
	var refs []struct{ Alias, Kind, Name, Namespace string }
	if err := remarshal(gen.Object["spec"].(map[string]any)["sources"], &refs); err != nil {
		return nil, genName + ": spec.sources: " + err.Error()
	}
	used := map[string]bool{}
	for _, op := range ops {
		alias, _, _ := strings.Cut(strings.TrimPrefix(op.From, "@"), "/")
		used[alias] = true
	}
	root := realPath(co.root)
	sources := map[string]artifact.Source{}
	key := root + "\x00" + ref.String() + "\x00" + gen.GetName()
	for _, r := range refs {
		if _, dup := sources[r.Alias]; dup {
			return nil, genName + ": duplicate source alias '" + r.Alias + "' found"
		}
		sources[r.Alias] = artifact.Source{}
		if !used[r.Alias] {
			continue // fetched by source-watcher, but nothing of it is copied here
		}
		src := sourceRef{kind: r.Kind, namespace: r.Namespace, name: r.Name}
		if src.namespace == "" {
			src.namespace = ref.namespace
		}
		if named, ok := f.named(src); ok && src.kind == OCIRepository {
			filter, dir, why := f.pushedOf(in, src, named, co)
			if why != "" {
				return nil, label + " copies from @" + r.Alias + " of " + genName + ": " + why
			}
			sources[r.Alias] = artifact.Source{Root: dir, Filter: filter}
			key += "\x00" + r.Alias + "=" + filter.Key()
			continue
		}
		if ok, why := f.thisRepository(in, src, co); !ok {
			return nil, label + " copies from @" + r.Alias + " of " + genName + ": " + why
		}
		filter, err := f.artifactOf(in, src, co)
		if err != nil {
			return nil, err.Error()
		}
		sources[r.Alias] = artifact.Source{Root: root, Filter: filter}
		key += "\x00" + r.Alias + "=" + filter.Key()
	}
	for alias, s := range sources {
		if s.Root == "" {
			delete(sources, alias) // an alias no copy uses
		}
	}
	specJSON, _ := json.Marshal(ops)
	key += "\x00" + string(specJSON)
	f.mu.Lock()
	defer f.mu.Unlock()
	if ext, ok := f.composed[key]; ok {
		return ext, ""
	}
	art, err := artifact.Compose(ops, sources)
	if err != nil {
		var u *artifact.Unmodelled
		if errors.As(err, &u) {
			return nil, genName + ", artifact " + ref.name + ": " + u.Msg
		}
		return nil, genName + ": " + ref.name + " build failed: " + err.Error()
	}
	ext := &external{label: label, root: filepath.Join(root, ".contourc-ExternalArtifact", ref.namespace, ref.name), art: art, key: key}
	if f.composed == nil {
		f.composed = map[string]*external{}
	}
	f.composed[key] = ext
	return ext, ""
}

// findGenerator is the ArtifactGenerator of the input that makes the
// ExternalArtifact ref, and the artifact's spec.
func findGenerator(in *loader.FollowInput, ref sourceRef) (*unstructured.Unstructured, map[string]any, string) {
	var patterned string
	for _, o := range in.Objects {
		group, _, _ := strings.Cut(o.APIVersion, "/")
		u, ok := o.Obj.(*unstructured.Unstructured)
		if group != generatorGroup || o.Kind != "ArtifactGenerator" || !ok || u.GetNamespace() != ref.namespace {
			continue
		}
		arts, _, _ := unstructured.NestedSlice(u.Object, "spec", "artifacts")
		pattern, _, _ := unstructured.NestedString(u.Object, "spec", "pathPattern")
		for _, a := range arts {
			if m, ok := a.(map[string]any); ok && str(m, "name") == ref.name {
				if pattern != "" {
					return nil, nil, "ArtifactGenerator " + ref.namespace + "/" + u.GetName() + ": spec.pathPattern is not modelled by contourc"
				}
				return u, m, ""
			}
		}
		if pattern != "" && patterned == "" {
			patterned = u.GetName()
		}
	}
	if patterned != "" {
		return nil, nil, "source " + ref.String() + " is made by no ArtifactGenerator of the input by name (ArtifactGenerator " + ref.namespace + "/" + patterned + "'s spec.pathPattern, which contourc does not expand, may make it)"
	}
	return nil, nil, "source " + ref.String() + " is made by no ArtifactGenerator of the input"
}

// remarshal decodes v (a JSON value of an unstructured object) into out.
func remarshal(v any, out any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

// buildExternal builds dir of the composed artifact as build builds a
// directory of the checkout: the generator writes the Kustomization's
// options into the directory's kustomization as the artifact has it (or
// into the listing of its manifests), and kustomize builds the view with
// that file in it.
func (f *Follower) buildExternal(co checkout, ext *external, dir string, u *unstructured.Unstructured, sub *loader.Substitution) (*loader.Built, error) {
	view := &viewFS{FileSystem: filesys.MakeFsOnDisk(), root: ext.root, checkout: realPath(co.root), label: ext.label, art: ext.art}
	req, err := viewRequest(view, dir, u)
	if err != nil {
		return nil, fmt.Errorf("kustomization generation failed: %s", view.relabel(err.Error()))
	}
	var gen engines.FluxGenerated
	if err := engines.Call(engines.OpFluxGenerate, req, &gen); err != nil {
		return nil, fmt.Errorf("kustomization generation failed: %s", view.relabel(err.Error()))
	}
	view.gen, view.data = filepath.Clean(gen.File), gen.Data
	b, err := kustomize.Run(view, dir, kustomize.Options{Remote: f.opts.KustomizeRemote, NoLoadRestrictions: true})
	b, err = view.putBack(b, err, dir)
	shown := co.root
	if b != nil {
		shown = b.Dir
	}
	return &loader.Built{
		Kustomize:  &kustomize.Result{Dir: display(shown), Build: b, Err: err},
		Substitute: sub,
	}, nil
}

// viewRequest asks the generator for dir's kustomization as the view has
// it: its kustomization file, else the listing of its manifests.
func viewRequest(view *viewFS, dir string, u *unstructured.Unstructured) (engines.FluxGenerateRequest, error) {
	obj, err := presentComponents(u, dir, view.Exists).MarshalJSON()
	if err != nil {
		return engines.FluxGenerateRequest{}, err
	}
	req := engines.FluxGenerateRequest{Root: view.root, Dir: dir, Kustomization: obj}
	if file := viewKustomizationFile(view, dir); file != "" {
		data, err := view.ReadFile(file)
		if err != nil {
			return req, err
		}
		req.Base = &engines.FluxBase{File: file, Data: data}
		return req, nil
	}
	walk := func(visit func(path string, isDir bool) error) error {
		return view.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err != nil || p == dir {
				return err
			}
			return visit(p, info.IsDir())
		})
	}
	hasKustomization := func(p string) bool { return viewKustomizationFile(view, p) != "" }
	resources, err := listManifests(dir, walk, hasKustomization, view.ReadFile, view.real)
	req.Base = &engines.FluxBase{File: filepath.Join(dir, konfig.DefaultKustomizationFileName()), Listed: true, Resources: resources}
	return req, err
}

// viewKustomizationFile is the kustomization file kustomize would find in
// dir of the view, or "".
func viewKustomizationFile(view *viewFS, dir string) string {
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		if p := filepath.Join(dir, name); view.isFileInArtifact(p) {
			return p
		}
	}
	return ""
}
