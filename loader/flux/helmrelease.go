package flux

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/loader/helmchart"
)

// helmRelease is the entry of a Flux HelmRelease: followed when its chart
// is a path of a GitRepository of this repository, rendered as
// helm-controller renders it (helmchart.Render): release name and
// namespace by helm-controller's rules, values from valuesFrom in order
// and spec.values over them.
func (f *Follower) helmRelease(in *loader.FollowInput, o loader.Object, u *unstructured.Unstructured) loader.Entry {
	if suspended, _, _ := unstructured.NestedBool(u.Object, "spec", "suspend"); suspended {
		return notFollowed(o, "spec.suspend is true: Flux applies nothing of it")
	}
	if ref, ok := readSourceRef(u, "", "spec", "chartRef"); ok {
		if ref.kind == "ExternalArtifact" {
			return notFollowed(o, "chart from "+ref.String()+" (spec.chartRef): charts of ExternalArtifacts are not rendered by contourc")
		}
		if _, ok := f.named(ref); ok && ref.kind == OCIRepository {
			return notFollowed(o, "chart from "+ref.String()+" (spec.chartRef): charts of OCIRepositories are not rendered by contourc, even of one named with --flux-source")
		}
		return notFollowed(o, "chart from "+ref.String()+" (spec.chartRef), a remote repository")
	}
	ref, ok := readSourceRef(u, "HelmRepository", "spec", "chart", "spec", "sourceRef")
	if !ok {
		return notFollowed(o, "spec.chart.spec.sourceRef names no source")
	}
	if ref.kind == "HelmRepository" {
		return notFollowed(o, "chart from a remote repository (HelmRepository "+ref.namespace+"/"+ref.name+")")
	}
	co, ok := checkoutOf(o)
	if !ok {
		return notFollowed(o, "no git repository holds "+o.Source.File+", so no source is this repository")
	}
	if ok, why := f.thisRepository(in, ref, co); !ok {
		return notFollowed(o, why)
	}
	if pr, _, _ := unstructured.NestedSlice(u.Object, "spec", "postRenderers"); len(pr) > 0 {
		return notFollowed(o, "spec.postRenderers are not applied by contourc")
	}
	chart, _, _ := unstructured.NestedString(u.Object, "spec", "chart", "spec", "chart")
	dir, why := inRepository(co, chart)
	if why != "" {
		return notFollowed(o, "chart "+why)
	}
	if !helmchart.IsChart(dir) {
		return notFollowed(o, "chart "+chart+" has no Chart.yaml")
	}
	opts, why := releaseOptions(in, co, u)
	if why != "" {
		return notFollowed(o, why)
	}
	key, _ := json.Marshal(struct {
		Dir  string
		Opts helmchart.Options
	}{dir, opts})
	return loader.Entry{
		Object: o,
		Key:    "flux-helmrelease " + string(key),
		Path:   repoPath(co, dir),
		Covers: []string{realPath(dir)},
		Build:  func() (*loader.Built, error) { return render(dir, opts) },
	}
}

// releaseOptions are the options helm-controller renders a HelmRelease's
// chart with.
func releaseOptions(in *loader.FollowInput, co checkout, u *unstructured.Unstructured) (helmchart.Options, string) {
	target, _, _ := unstructured.NestedString(u.Object, "spec", "targetNamespace")
	opts := helmchart.Options{ReleaseName: releaseName(u, target), Namespace: target}
	if opts.Namespace == "" {
		opts.Namespace = u.GetNamespace()
	}
	// source-controller builds the chart with its valuesFiles, paths in
	// the source, merged in order as the chart's values: its values.yaml
	// counts only when listed.
	files, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "chart", "spec", "valuesFiles")
	for _, f := range files {
		opts.ValueFiles = append(opts.ValueFiles, filepath.Join(co.root, filepath.FromSlash(f)))
	}
	opts.ReplaceChartValues = len(files) > 0
	opts.IgnoreMissingValueFiles, _, _ = unstructured.NestedBool(u.Object, "spec", "chart", "spec", "ignoreMissingValuesFiles")
	values, why := releaseValues(in, u)
	opts.Values = values
	return opts, why
}

// releaseName is helm-controller's: spec.releaseName, else the
// HelmRelease's name, prefixed with the target namespace when there is
// one; shortened to Helm's limit of 53 characters.
func releaseName(u *unstructured.Unstructured, target string) string {
	name, _, _ := unstructured.NestedString(u.Object, "spec", "releaseName")
	switch {
	case name != "":
	case target != "":
		name = target + "-" + u.GetName()
	default:
		name = u.GetName()
	}
	return shortReleaseName(name)
}

// maxReleaseName is the longest release name Helm accepts.
const maxReleaseName = 53

// shortReleaseName is how helm-controller fits a longer name into
// maxReleaseName: its first 40 characters, a hyphen, and the first 12 hex
// digits of the whole name's SHA-256.
func shortReleaseName(name string) string {
	if len(name) <= maxReleaseName {
		return name
	}
	const hashDigits = 12
	sum := sha256.Sum256([]byte(name))
	return name[:maxReleaseName-hashDigits-1] + "-" + hex.EncodeToString(sum[:])[:hashDigits]
}

// releaseValues merges the values of spec.valuesFrom, in order, and
// spec.values over them, as helm-controller does. A reference that
// cannot be read is why the HelmRelease is not followed, unless it is
// optional and absent.
func releaseValues(in *loader.FollowInput, u *unstructured.Unstructured) (map[string]any, string) {
	out := map[string]any{}
	refs, _, _ := unstructured.NestedSlice(u.Object, "spec", "valuesFrom")
	for i, r := range refs {
		m, ok := r.(map[string]any)
		if !ok {
			return nil, fmt.Sprintf("spec.valuesFrom[%d] is not a reference", i)
		}
		kind, name, key, target := str(m, "kind"), str(m, "name"), str(m, "valuesKey"), str(m, "targetPath")
		optional, _ := m["optional"].(bool)
		if key == "" {
			key = "values.yaml"
		}
		data, why := referencedData(in, kind, u.GetNamespace(), name, optional)
		if why != "" {
			return nil, "spec.valuesFrom: " + strings.Replace(why, "substitute from", "values from", 1)
		}
		value, ok := data[key]
		if !ok {
			if optional || data == nil {
				continue
			}
			return nil, fmt.Sprintf("spec.valuesFrom: %s %s/%s has no key %q", kind, u.GetNamespace(), name, key)
		}
		if target != "" {
			setPath(out, strings.Split(target, "."), value)
			continue
		}
		var v map[string]any
		if err := yaml.Unmarshal([]byte(value), &v); err != nil {
			return nil, fmt.Sprintf("spec.valuesFrom: %s %s/%s key %q: %v", kind, u.GetNamespace(), name, key, err)
		}
		mergeValues(out, v)
	}
	if v, ok, _ := unstructured.NestedMap(u.Object, "spec", "values"); ok {
		mergeValues(out, v)
	}
	return out, ""
}

// mergeValues merges src into dst as Helm merges values: maps key by
// key, anything else replaced.
func mergeValues(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeValues(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

// setPath sets the value at a dotted path (valuesFrom's targetPath).
func setPath(m map[string]any, path []string, value string) {
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = value
}

// render renders the chart, each template a file named from the working
// directory as helm names it ("charts/web/templates/proxy.yaml").
func render(dir string, opts helmchart.Options) (*loader.Built, error) {
	manifests, err := helmchart.Render(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("helm template failed: %w", err)
	}
	b := &loader.Built{Namespace: opts.Namespace}
	parent := display(filepath.Dir(dir))
	for _, m := range manifests {
		b.Files = append(b.Files, loader.BuiltFile{Name: filepath.Join(parent, filepath.FromSlash(m.Template)), Data: m.Content})
	}
	return b, nil
}
