package flux

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/loader/flux/artifact"
)

// source.go: what kustomize-controller sees of the repository is not the
// checkout but the artifact source-controller made of it, which leaves
// out the files its ignore rules match and symbolic links
// (loader/flux/artifact). A Kustomization is generated and built from
// that view: the generator lists only the files in it, and kustomize
// finds none of the others, as in Flux.

// artifactOf is the filter of the artifact of ref, the GitRepository that
// is the checkout co, read once per run: its spec.ignore when the input
// holds it (a GitRepository named by flux-system/flux-system or
// --flux-source that is not in the input ignores nothing of its own).
func (f *Follower) artifactOf(in *loader.FollowInput, ref sourceRef, co checkout) (*artifact.Filter, error) {
	var ignore string
	if src, ok := in.Find("GitRepository", ref.namespace, ref.name); ok {
		if u, ok := src.Obj.(*unstructured.Unstructured); ok {
			ignore, _, _ = unstructured.NestedString(u.Object, "spec", "ignore")
		}
	}
	key := co.root + "\x00" + ref.String() + "\x00" + ignore
	f.mu.Lock()
	defer f.mu.Unlock()
	if a, ok := f.artifacts[key]; ok {
		return a, nil
	}
	a, err := artifact.Load(co.root, ref.String(), ignore)
	if err != nil {
		return nil, fmt.Errorf("source %s: failed to load source ignore patterns from repository: %w", ref, err)
	}
	if f.artifacts == nil {
		f.artifacts = map[string]*artifact.Filter{}
	}
	f.artifacts[key] = a
	return a, nil
}

// notInArtifact is the error of a path the artifact does not hold, as
// os.Stat would give it in Flux's copy, with why.
type notInArtifact struct {
	op, path, source, why string
}

func (e *notInArtifact) Error() string {
	return fmt.Sprintf("%s %s: no such file or directory (not in the artifact of %s: %s)", e.op, e.path, e.source, e.why)
}

func (e *notInArtifact) Unwrap() error { return fs.ErrNotExist }

// generatedFS is the disk as the artifact has it, with one kustomization
// file as the generator made it.
type generatedFS struct {
	filesys.FileSystem
	path string
	data []byte
	art  *artifact.Filter
}

// hidden is why path is not in the artifact, or "".
func (g *generatedFS) hidden(path string) string {
	if g.art == nil {
		return ""
	}
	return g.art.Excluded(path, g.FileSystem.IsDir(path))
}

func (g *generatedFS) ReadFile(path string) ([]byte, error) {
	if filepath.Clean(path) == g.path {
		return g.data, nil
	}
	if why := g.hidden(path); why != "" {
		return nil, &notInArtifact{"open", path, g.art.Source(), why}
	}
	return g.FileSystem.ReadFile(path)
}

func (g *generatedFS) Open(path string) (filesys.File, error) {
	if why := g.hidden(path); why != "" {
		return nil, &notInArtifact{"open", path, g.art.Source(), why}
	}
	return g.FileSystem.Open(path)
}

func (g *generatedFS) Exists(path string) bool {
	if filepath.Clean(path) == g.path {
		return true
	}
	return g.hidden(path) == "" && g.FileSystem.Exists(path)
}

func (g *generatedFS) IsDir(path string) bool {
	return filepath.Clean(path) != g.path && g.FileSystem.IsDir(path) && g.hidden(path) == ""
}

func (g *generatedFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	if why := g.hidden(path); why != "" {
		return "", "", &notInArtifact{"stat", path, g.art.Source(), why}
	}
	return g.FileSystem.CleanedAbs(path)
}

func (g *generatedFS) ReadDir(path string) ([]string, error) {
	names, err := g.FileSystem.ReadDir(path)
	if err != nil || g.art == nil {
		return names, err
	}
	var out []string
	for _, n := range names {
		if g.hidden(filepath.Join(path, n)) == "" {
			out = append(out, n)
		}
	}
	return out, nil
}

func (g *generatedFS) Glob(pattern string) ([]string, error) {
	matches, err := g.FileSystem.Glob(pattern)
	if err != nil || g.art == nil {
		return matches, err
	}
	var out []string
	for _, m := range matches {
		if g.hidden(m) == "" {
			out = append(out, m)
		}
	}
	return out, nil
}

func (g *generatedFS) Walk(path string, walkFn filepath.WalkFunc) error {
	return g.FileSystem.Walk(path, func(p string, info os.FileInfo, err error) error {
		if err == nil && g.art != nil {
			if why := g.art.Excluded(p, info.IsDir()); why != "" {
				if info.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		return walkFn(p, info, err)
	})
}

// kustomizationFile is the kustomization file kustomize would find in dir
// of the artifact (the first of kustomize's names that is a file there),
// and the one it would find on disk; "" for none.
func kustomizationFile(art *artifact.Filter, dir string) (inArtifact, onDisk string) {
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		p := filepath.Join(dir, name)
		st, err := os.Stat(p)
		if err != nil || st.IsDir() {
			continue
		}
		if onDisk == "" {
			onDisk = p
		}
		if inArtifact == "" && art.Excluded(p, false) == "" {
			inArtifact = p
		}
	}
	return inArtifact, onDisk
}

// scanManifests lists dir's manifests as Flux's generator does when the
// directory has no kustomization (fluxcd/pkg/kustomize scanManifests),
// over the artifact: in name order, a subdirectory that holds a
// kustomization file as itself (not descending into it), every other
// *.yaml and *.yml file that kustomize can read as resources, as
// "./path" from dir. A file kustomize cannot read fails the generation,
// as in Flux.
func scanManifests(art *artifact.Filter, dir string) ([]string, error) {
	walk := func(visit func(path string, isDir bool) error) error {
		return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || path == dir {
				return err
			}
			if art.Excluded(path, d.IsDir()) != "" {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			return visit(path, d.IsDir())
		})
	}
	hasKustomization := func(path string) bool { k, _ := kustomizationFile(art, path); return k != "" }
	return listManifests(dir, walk, hasKustomization, os.ReadFile, func(path string) string { return path })
}

// listManifests is the listing of scanManifests over a tree: walk visits
// dir's files and directories below it in name order (SkipDir skipping a
// directory), hasKustomization says whether a directory has a
// kustomization file, read reads a file, and shown names it in messages.
func listManifests(dir string, walk func(visit func(path string, isDir bool) error) error,
	hasKustomization func(string) bool, read func(string) ([]byte, error), shown func(string) string) ([]string, error) {
	rf := provider.NewDefaultDepProvider().GetResourceFactory()
	var out []string
	err := walk(func(path string, isDir bool) error {
		if isDir {
			if hasKustomization(path) {
				out = append(out, "."+strings.TrimPrefix(path, dir))
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" {
			return nil
		}
		data, err := read(path)
		if err != nil {
			return err
		}
		if err := decodable(rf, shown(path), data); err != nil {
			return err
		}
		out = append(out, "."+strings.TrimPrefix(path, dir))
		return nil
	})
	return out, err
}

// decodable fails, in the generator's words, when kustomize cannot read
// the file at path as resources.
func decodable(rf *resource.Factory, path string, data []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered from panic while parsing YAML file %s: %v", filepath.Base(path), r)
		}
	}()
	if _, err := rf.SliceFromBytes(data); err != nil {
		return fmt.Errorf("failed to decode Kubernetes YAML from %s: %w", path, err)
	}
	return nil
}

// presentComponents is u with spec.components that the artifact lacks
// (exists says whether it has a path) left out when
// spec.ignoreMissingComponents says so, as the generator leaves out those
// missing from its copy, and the flag then cleared: the generator would
// otherwise look for them on disk.
func presentComponents(u *unstructured.Unstructured, dir string, exists func(path string) bool) *unstructured.Unstructured {
	ignoreMissing, _, _ := unstructured.NestedBool(u.Object, "spec", "ignoreMissingComponents")
	components, ok, _ := unstructured.NestedStringSlice(u.Object, "spec", "components")
	if !ignoreMissing || !ok {
		return u
	}
	var kept []any
	for _, c := range components {
		if exists(filepath.Join(dir, c)) {
			kept = append(kept, c)
		}
	}
	out := u.DeepCopy()
	_ = unstructured.SetNestedSlice(out.Object, kept, "spec", "components")
	_ = unstructured.SetNestedField(out.Object, false, "spec", "ignoreMissingComponents")
	return out
}
