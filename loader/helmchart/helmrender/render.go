// Package helmrender is helmchart's renderer: Helm's chart loader, value
// handling and template engine, called as `helm template` calls them
// (helm's pkg/action Install with ClientOnly), without pkg/action itself,
// which would link Helm's cluster client, storage and registry code.
//
// Importing it makes helmchart.Render render in this process (it
// registers engines.OpHelmRender).
package helmrender

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
	"helm.sh/helm/v3/pkg/strvals"
	"sigs.k8s.io/yaml"

	"github.com/contourc/contourc/loader/engines"
	"github.com/contourc/contourc/loader/helmchart"
)

func init() { engines.Register(engines.OpHelmRender, serve) }

// serve is engines.OpHelmRender.
func serve(body json.RawMessage) (any, error) {
	var req helmchart.Request
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("%s: unreadable request: %v", engines.OpHelmRender, err)
	}
	return Render(req.ChartDir, req.Options)
}

// notesFile is what helm renders but does not print (pkg/action's
// notesFileSuffix).
const notesFile = "NOTES.txt"

// Render renders the chart in chartDir as `helm template` does, with its
// error messages prefixed by the chart and release, and template names in
// them replaced by the templates' files.
func Render(chartDir string, opts helmchart.Options) (*helmchart.Result, error) {
	r, files, err := render(chartDir, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", helmchart.Describe(chartDir, opts), strings.TrimSpace(files.rewrite(err.Error())))
	}
	return r, nil
}

func render(chartDir string, opts helmchart.Options) (*helmchart.Result, *fileMap, error) {
	files := &fileMap{local: map[*chart.Chart]string{}}
	chrt, err := loader.Load(chartDir)
	if err != nil {
		return nil, files, err
	}
	// helm install refuses library charts the same way (checkIfInstallable).
	if t := chrt.Metadata.Type; t != "" && t != "application" {
		return nil, files, fmt.Errorf("%s charts are not installable", t)
	}
	result := &helmchart.Result{Chart: chrt.Name() + "-" + chrt.Metadata.Version}
	result.Skipped = vendorLocalDependencies(chrt, chartDir, files.local)
	files.record(chrt, chartDir)

	vals, err := userValues(opts)
	if err != nil {
		return nil, files, err
	}
	if opts.ReplaceChartValues && len(opts.ValueFiles) > 0 {
		chrt.Values = map[string]any{}
	}
	if err := chartutil.ProcessDependenciesWithMerge(chrt, vals); err != nil {
		return nil, files, err
	}
	files.index(chrt)
	caps, err := capabilities(opts)
	if err != nil {
		return nil, files, err
	}
	// pkg/action renderResources checks the chart's kubeVersion before
	// rendering.
	if kv := chrt.Metadata.KubeVersion; kv != "" && !chartutil.IsCompatibleRange(kv, caps.KubeVersion.String()) {
		return nil, files, fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", kv, caps.KubeVersion.String())
	}
	release := chartutil.ReleaseOptions{
		Name:      opts.Release(),
		Namespace: opts.ReleaseNamespace(),
		Revision:  1,
		IsInstall: true,
	}
	top, err := chartutil.ToRenderValuesWithSchemaValidation(chrt, vals, release, caps, opts.SkipSchemaValidation)
	if err != nil {
		return nil, files, err
	}
	var e engine.Engine
	rendered, err := e.Render(chrt, top)
	if err != nil {
		return nil, files, err
	}
	for name := range rendered {
		if strings.HasSuffix(name, notesFile) {
			delete(rendered, name)
		}
	}
	// SortManifests drops partials (_*.tpl) and empty documents, splits the
	// rest into documents, and orders them as helm prints them.
	hooks, manifests, err := releaseutil.SortManifests(rendered, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, files, err
	}
	lines := newDocLines(rendered, files)
	if opts.IncludeCRDs {
		result.Manifests = append(result.Manifests, crds(chrt, files)...)
	}
	for _, m := range manifests {
		result.Manifests = append(result.Manifests, files.manifest(m.Name, m.Content, lines))
	}
	for _, h := range hooks {
		if opts.SkipTests && isTestHook(h) {
			continue
		}
		result.Manifests = append(result.Manifests, files.manifest(h.Path, h.Manifest, lines))
	}
	return result, files, nil
}

// userValues are the values helm template merges from its flags: -f
// files in order, then (contourc's) Values, then --set, then --set-string,
// then --set-file (pkg/cli/values Options.MergeValues).
func userValues(opts helmchart.Options) (map[string]any, error) {
	vals := map[string]any{}
	for _, f := range opts.ValueFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			if opts.IgnoreMissingValueFiles && os.IsNotExist(err) {
				continue
			}
			return nil, err
		}
		var m map[string]any
		if err := yaml.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("failed to parse %s: %w", f, err)
		}
		vals = helmchart.MergeValues(vals, m)
	}
	if len(opts.Values) > 0 {
		// Through YAML, as helm reads a values file: numbers become what
		// a -f file would give.
		data, err := yaml.Marshal(opts.Values)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := yaml.Unmarshal(data, &m); err != nil {
			return nil, err
		}
		vals = helmchart.MergeValues(vals, m)
	}
	for _, s := range opts.Set {
		if err := helmchart.SetValues(vals, s, false); err != nil {
			return nil, fmt.Errorf("failed parsing --set data: %w", err)
		}
	}
	for _, s := range opts.SetString {
		if err := helmchart.SetValues(vals, s, true); err != nil {
			return nil, fmt.Errorf("failed parsing --set-string data: %w", err)
		}
	}
	for _, s := range opts.SetFile {
		if err := strvals.ParseIntoFile(s, vals, readSetFile); err != nil {
			return nil, fmt.Errorf("failed parsing --set-file data: %w", err)
		}
	}
	return vals, nil
}

// readSetFile is the value of a --set-file: the file's content, as a
// string, as helm reads it (a local path; contourc fetches nothing).
func readSetFile(rs []rune) (any, error) {
	data, err := os.ReadFile(string(rs))
	if err != nil {
		return nil, err
	}
	return string(data), nil
}

// capabilities are helm template's stand-in cluster: every API version
// client-go knows, plus --api-versions, at --kube-version.
func capabilities(opts helmchart.Options) (*chartutil.Capabilities, error) {
	caps := chartutil.DefaultCapabilities.Copy()
	v := opts.KubeVersion
	if v == "" {
		v = helmchart.BuiltForKubeVersion()
	}
	kv, err := chartutil.ParseKubeVersion(v)
	if err != nil {
		return nil, fmt.Errorf("invalid kube version %q: %w", v, err)
	}
	caps.KubeVersion = *kv
	caps.APIVersions = append(append(chartutil.VersionSet{}, caps.APIVersions...), opts.APIVersions...)
	return caps, nil
}

func isTestHook(h *release.Hook) bool {
	for _, e := range h.Events {
		if e == release.HookTest {
			return true
		}
	}
	return false
}

// crds are the charts' crds/ files, first, as --include-crds prints them.
func crds(chrt *chart.Chart, files *fileMap) []helmchart.Manifest {
	var out []helmchart.Manifest
	for _, crd := range chrt.CRDObjects() {
		docs := releaseutil.SplitManifests(string(crd.File.Data))
		keys := make([]string, 0, len(docs))
		for k := range docs {
			keys = append(keys, k)
		}
		sort.Sort(releaseutil.BySplitManifestsOrder(keys))
		for _, k := range keys {
			out = append(out, helmchart.Manifest{
				Template: crd.Filename,
				File:     files.diskPath(crd.Filename),
				Line:     1,
				Content:  []byte(docs[k]),
			})
		}
	}
	return out
}

// chartFile is a chart file's name as helm's engine names it.
func chartFile(c *chart.Chart, name string) string {
	return path.Join(c.ChartFullPath(), name)
}
