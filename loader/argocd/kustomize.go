package argocd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
	kustutil "sigs.k8s.io/kustomize/api/pkg/util"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/contourc/contourc/loader/kustomize"
)

// kustomize.go: a kustomize source's options. Argo CD applies them by
// running `kustomize edit set nameprefix|namesuffix|image|replicas|
// namespace`, `kustomize edit add label|annotation|component` and by
// appending patches to the kustomization file in its checkout, then
// `kustomize build` (util/kustomize: Build). contourc does the same edits,
// in that order, to the kustomization as kustomize's edit commands read
// and write it (types.Kustomization, FixKustomization), in memory: the
// build reads the edited kustomization through KustomizeFS and nothing is
// written to the repository.

// KustomizeFS is fSys with the kustomization file of appDir edited as
// Argo CD edits it for the source's kustomize options; fSys itself when
// there is nothing to edit. env substitutes Argo CD's build environment
// ($ARGOCD_APP_NAME...) where Argo CD does: images and label values
// always, annotation values with commonAnnotationsEnvsubst.
func KustomizeFS(fSys filesys.FileSystem, appDir string, k *Kustomize, env Env) (filesys.FileSystem, error) {
	if k == nil || !k.edits() {
		return fSys, nil
	}
	file, ok := kustomizationFile(fSys, appDir)
	if !ok {
		return nil, fmt.Errorf("unable to find one of %s in directory '%s'", quotedNames(), appDir)
	}
	data, err := fSys.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var kust types.Kustomization
	if err := kust.Unmarshal(data); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	kust.FixKustomization()
	if err := k.apply(&kust, fSys, appDir, env); err != nil {
		return nil, err
	}
	edited, err := yaml.Marshal(&kust)
	if err != nil {
		return nil, err
	}
	return &editedFS{FileSystem: fSys, file: file, real: realPath(file), data: edited, original: data}, nil
}

// OwnDeprecations are the deprecation warnings of a build on fSys (a
// KustomizeFS) that the repository's own kustomization files earn: those
// of the edited kustomization that only Argo CD's edits brought in (the
// commonLabels that `kustomize edit add label` writes) are Argo CD's, not
// the file's, and are left out.
func OwnDeprecations(fSys filesys.FileSystem, deps []kustomize.Deprecation) []kustomize.Deprecation {
	e, ok := fSys.(*editedFS)
	if !ok {
		return deps
	}
	var own types.Kustomization
	ownMsgs := map[string]bool{}
	if own.Unmarshal(e.original) == nil {
		if msgs := own.CheckDeprecatedFields(); msgs != nil {
			for _, m := range *msgs {
				ownMsgs[strings.TrimPrefix(strings.TrimPrefix(m, "# "), "Warning: ")] = true
			}
		}
	}
	out := deps[:0:0]
	for _, d := range deps {
		if (d.File == e.real || d.File == e.file) && !ownMsgs[d.Msg] {
			continue
		}
		out = append(out, d)
	}
	return out
}

// edits reports whether Argo CD would run any kustomize edit for k.
func (k *Kustomize) edits() bool {
	return k.NamePrefix != "" || k.NameSuffix != "" || len(k.Images) > 0 || len(k.Replicas) > 0 ||
		len(k.CommonLabels) > 0 || len(k.CommonAnnotations) > 0 || k.Namespace != "" ||
		len(k.Patches) > 0 || len(k.Components) > 0
}

// apply makes Argo CD's edits, in its order.
func (k *Kustomize) apply(kust *types.Kustomization, fSys filesys.FileSystem, appDir string, env Env) error {
	if k.NamePrefix != "" {
		kust.NamePrefix = k.NamePrefix
	}
	if k.NameSuffix != "" {
		kust.NameSuffix = k.NameSuffix
	}
	if len(k.Images) > 0 {
		if err := setImages(kust, k.Images, env); err != nil {
			return err
		}
	}
	if len(k.Replicas) > 0 {
		if err := setReplicas(kust, k.Replicas); err != nil {
			return err
		}
	}
	if len(k.CommonLabels) > 0 {
		labels := map[string]string{}
		for name, v := range k.CommonLabels {
			labels[name] = env.Expand(v)
		}
		if err := addLabels(kust, labels, k.ForceCommonLabels, k.LabelWithoutSelector, k.LabelIncludeTemplates); err != nil {
			return err
		}
	}
	if len(k.CommonAnnotations) > 0 {
		annotations := map[string]string{}
		for name, v := range k.CommonAnnotations {
			if k.CommonAnnotationsEnvsubst {
				v = env.Expand(v)
			}
			annotations[name] = v
		}
		if kust.CommonAnnotations == nil {
			kust.CommonAnnotations = map[string]string{}
		}
		if err := addToMap(kust.CommonAnnotations, annotations, k.ForceCommonAnnotations, "annotation"); err != nil {
			return err
		}
	}
	if k.Namespace != "" {
		kust.Namespace = k.Namespace
	}
	if len(k.Patches) > 0 {
		if err := addPatches(kust, k.Patches); err != nil {
			return err
		}
	}
	return addComponents(kust, k.Components, k.IgnoreMissingComponents, fSys, appDir)
}

// setImages is `kustomize edit set image` of each image: an argument
// [old=]new[:tag][@digest] replaces the kustomization's entry of that
// name or is added; `*` keeps what the entry had.
func setImages(kust *types.Kustomization, images []string, env Env) error {
	byName := map[string]types.Image{}
	for _, arg := range images {
		img, err := parseImage(env.Expand(arg))
		if err != nil {
			return err
		}
		byName[img.Name] = img
	}
	for _, old := range kust.Images {
		img, ok := byName[old.Name]
		if !ok {
			byName[old.Name] = old
			continue
		}
		if img.NewName == "*" {
			img.NewName = old.NewName
		}
		if img.NewTag == "*" {
			img.NewTag = old.NewTag
		}
		if img.Digest == "*" {
			img.Digest = old.Digest
		}
		byName[old.Name] = img
	}
	out := make([]types.Image, 0, len(byName))
	for _, img := range byName {
		for _, f := range []*string{&img.NewName, &img.NewTag, &img.Digest} {
			if *f == "*" {
				*f = ""
			}
		}
		out = append(out, img)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	kust.Images = out
	return nil
}

// parseImage reads an argument of `kustomize edit set image`.
func parseImage(arg string) (types.Image, error) {
	key, value, renamed := strings.Cut(arg, "=")
	if !renamed {
		key, value = "", arg
	}
	name, tag, digest := kustutil.SplitImageName(value)
	if name == arg {
		return types.Image{}, fmt.Errorf("invalid format of image %q, use one of [<image>=]<newimage>[:<newtag>][@<digest>], <image>:<newtag>, <image>@<digest>", arg)
	}
	img := types.Image{NewTag: tag, Digest: digest, Name: name}
	if renamed {
		img.Name, img.NewName = key, name
	}
	return img, nil
}

// setReplicas is `kustomize edit set replicas name=count`: an entry of
// that name is replaced, or one is added.
func setReplicas(kust *types.Kustomization, replicas []Replica) error {
	for _, r := range replicas {
		count, err := replicaCount(r)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(kust.Replicas, func(e types.Replica) bool { return e.Name == r.Name })
		if i < 0 {
			kust.Replicas = append(kust.Replicas, types.Replica{Name: r.Name, Count: count})
			continue
		}
		kust.Replicas[i].Count = count
	}
	return nil
}

// replicaCount is a replicas override's count, a number or a string of
// one, as Argo CD reads it.
func replicaCount(r Replica) (int64, error) {
	var n int64
	if err := json.Unmarshal(r.Count, &n); err == nil {
		return n, nil
	}
	var s string
	if err := json.Unmarshal(r.Count, &s); err == nil {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, nil
		}
		return 0, fmt.Errorf("expected integer value for count. Received: %s", s)
	}
	return 0, fmt.Errorf("expected integer value for count. Received: %s", string(r.Count))
}

// addLabels is `kustomize edit add label`: into commonLabels (which
// select too), or, --without-selector, into the labels entry without
// selectors (and with templates as asked).
func addLabels(kust *types.Kustomization, labels map[string]string, force, withoutSelector, includeTemplates bool) error {
	if includeTemplates && !withoutSelector {
		return errors.New("--without-selector flag must be specified for --include-templates to work")
	}
	if !withoutSelector {
		if kust.CommonLabels == nil {
			kust.CommonLabels = map[string]string{}
		}
		return addToMap(kust.CommonLabels, labels, force, "label")
	}
	i := slices.IndexFunc(kust.Labels, func(l types.Label) bool {
		return !l.IncludeSelectors && l.IncludeTemplates == includeTemplates
	})
	if i < 0 {
		kust.Labels = append(kust.Labels, types.Label{Pairs: map[string]string{}, IncludeTemplates: includeTemplates})
		i = len(kust.Labels) - 1
	}
	if kust.Labels[i].Pairs == nil {
		kust.Labels[i].Pairs = map[string]string{}
	}
	return addToMap(kust.Labels[i].Pairs, labels, force, "label")
}

// addToMap adds pairs as kustomize's edit add does: a key already there
// is an error unless forced.
func addToMap(m, pairs map[string]string, force bool, kind string) error {
	for _, k := range sortedKeys(pairs) {
		if _, ok := m[k]; ok && !force {
			return fmt.Errorf("%s %s already in kustomization file. Use --force to override.", kind, k)
		}
		m[k] = pairs[k]
	}
	return nil
}

// addPatches appends the source's patches to the kustomization's, as
// Argo CD writes them into the file.
func addPatches(kust *types.Kustomization, patches []map[string]any) error {
	for _, p := range patches {
		data, err := json.Marshal(p)
		if err != nil {
			return err
		}
		var patch types.Patch
		if err := json.Unmarshal(data, &patch); err != nil {
			return fmt.Errorf("kustomize patch: %w", err)
		}
		kust.Patches = append(kust.Patches, patch)
	}
	return nil
}

// addComponents is `kustomize edit add component`: each path not yet
// listed is added; with ignoreMissingComponents, those that do not exist
// are left out first.
func addComponents(kust *types.Kustomization, components []string, ignoreMissing bool, fSys filesys.FileSystem, appDir string) error {
	for _, c := range components {
		if ignoreMissing && !fSys.Exists(filepath.Join(appDir, c)) {
			continue
		}
		if !slices.Contains(kust.Components, c) {
			kust.Components = append(kust.Components, c)
		}
	}
	return nil
}

// kustomizationFile is the kustomization file of dir, by kustomize's
// names in its order.
func kustomizationFile(fSys filesys.FileSystem, dir string) (string, bool) {
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		p := filepath.Join(dir, name)
		if fSys.Exists(p) && !fSys.IsDir(p) {
			return p, true
		}
	}
	return "", false
}

func quotedNames() string {
	var q []string
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		q = append(q, "'"+n+"'")
	}
	return strings.Join(q, ", ")
}

// editedFS hands kustomize the edited kustomization in place of the
// file; every other file is read as it is.
type editedFS struct {
	filesys.FileSystem
	file, real string // the kustomization file, as found and resolved
	data       []byte // as edited
	original   []byte
}

func (e *editedFS) ReadFile(path string) ([]byte, error) {
	if filepath.Base(path) == filepath.Base(e.file) {
		if p := filepath.Clean(path); p == e.file || p == e.real || realPath(p) == e.real {
			return slices.Clone(e.data), nil
		}
	}
	return e.FileSystem.ReadFile(path)
}

// realPath is path absolute with its links resolved, as kustomize names
// the files it reads.
func realPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// fileExists reports whether path is a regular file (or a link to one).
func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
