// Package helmchart renders a Helm chart held in a directory the way
// `helm template` renders it, with Helm's own engine, client-only: no
// cluster is asked anything and nothing is fetched.
//
// The engine itself is in helmrender, which links Helm (its template
// functions, chart utilities, a JSON Schema compiler and client-go's type
// registry). Their package initialisation costs every run about 7 ms of
// CPU, `contourc version` included, so contourc does not link it: Render
// asks the contourc-engines program (cmd/contourc-engines, see
// loader/engines), only when a chart is to be rendered. A program that
// links helmrender (contourc-engines itself, tests) renders in its own
// process.
package helmchart

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/contourc/contourc/loader/engines"
)

// DefaultReleaseName is the release name `helm template` uses when none is
// given.
const DefaultReleaseName = "release-name"

// DefaultNamespace is .Release.Namespace when none is given, as for
// `helm template` with no kube context.
const DefaultNamespace = "default"

// Options are the inputs of `helm template` that shape what a chart
// renders to. They cross a process boundary as JSON (see the package doc):
// numbers in Values arrive as float64, as Helm's own reading of YAML values
// gives them.
type Options struct {
	// ReleaseName is .Release.Name; DefaultReleaseName when empty.
	ReleaseName string `json:"releaseName,omitempty"`
	// Namespace is .Release.Namespace; DefaultNamespace when empty.
	Namespace string `json:"namespace,omitempty"`
	// ValueFiles are read in order, each over the chart's values.yaml and
	// the files before it (helm template -f). Relative paths are from the
	// working directory, as helm reads them.
	ValueFiles []string `json:"valueFiles,omitempty"`
	// ReplaceChartValues makes the value files the chart's values instead
	// of going over its values.yaml, which then counts only when listed
	// among them: Flux builds a chart with spec.chart.spec.valuesFiles so.
	ReplaceChartValues bool `json:"replaceChartValues,omitempty"`
	// IgnoreMissingValueFiles leaves out value files that do not exist
	// (Argo CD's helm.ignoreMissingValueFiles) instead of failing.
	IgnoreMissingValueFiles bool `json:"ignoreMissingValueFiles,omitempty"`
	// Values are merged over the value files (a HelmRelease's values
	// merged over its valuesFrom, an Argo CD source's values or
	// valuesObject). MergeValues and SetPath build them.
	Values map[string]any `json:"values,omitempty"`
	// Set and SetString are applied last, in this order, as helm applies
	// --set and --set-string (Argo CD parameters: forceString ones go to
	// SetString). Each is "key=value[,key=value]" in Helm's strvals syntax.
	Set       []string `json:"set,omitempty"`
	SetString []string `json:"setString,omitempty"`
	// SetFile are applied after them, as helm applies --set-file: each is
	// "key=path", setting key to the content of the file at path, as a
	// string (Argo CD's helm.fileParameters).
	SetFile []string `json:"setFile,omitempty"`
	// KubeVersion is .Capabilities.KubeVersion; when empty, the version
	// of Kubernetes contourc's client libraries are built for
	// (BuiltForKubeVersion).
	KubeVersion string `json:"kubeVersion,omitempty"`
	// APIVersions are added to .Capabilities.APIVersions (--api-versions).
	APIVersions []string `json:"apiVersions,omitempty"`
	// SkipSchemaValidation does not check the values against the charts'
	// values.schema.json (--skip-schema-validation).
	SkipSchemaValidation bool `json:"skipSchemaValidation,omitempty"`
	// IncludeCRDs puts the charts' crds/ files first (--include-crds).
	IncludeCRDs bool `json:"includeCRDs,omitempty"`
	// SkipTests leaves out test hooks (--skip-tests).
	SkipTests bool `json:"skipTests,omitempty"`
}

// Manifest is one rendered Kubernetes document.
type Manifest struct {
	// Template is the template's path as helm template names it in its
	// "# Source:" comments, e.g. "web/templates/proxy.yaml".
	Template string `json:"template"`
	// File is the template's file on disk, from the directory given to
	// Render, e.g. "charts/web/templates/proxy.yaml" for chartDir
	// "charts/web"; a subchart in an archive is the archive's path.
	File string `json:"file"`
	// Line is the line of File where the document's source starts, as
	// well as it can be told: the template's N-th document separator when
	// the template and its output have as many documents, else 1.
	Line int `json:"line"`
	// Content is the rendered YAML of one document.
	Content []byte `json:"content"`
}

// Skipped is part of a chart that was not rendered, and why.
type Skipped struct {
	// Name is the dependency's name (alias when it has one).
	Name string `json:"name"`
	// Reason says why, e.g. "chart from a remote repository
	// https://charts.example.com, not in charts/ (helm dependency build
	// would fetch it)".
	Reason string `json:"reason"`
}

// Result is a rendered chart.
type Result struct {
	// Chart is the chart's name and version, e.g. "web-1.2.0".
	Chart string `json:"chart"`
	// Manifests are in the order helm template prints them: CRDs when
	// asked for, the manifests sorted by kind (InstallOrder), then hooks.
	Manifests []Manifest `json:"manifests"`
	// Skipped are the dependencies that could not be rendered.
	Skipped []Skipped `json:"skipped,omitempty"`
}

// IsChart reports whether dir holds a chart (a Chart.yaml).
func IsChart(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "Chart.yaml"))
	return err == nil && st.Mode().IsRegular()
}

// Render renders the chart in chartDir.
func Render(chartDir string, opts Options) ([]Manifest, error) {
	r, err := RenderChart(chartDir, opts)
	if err != nil {
		return nil, err
	}
	return r.Manifests, nil
}

// RenderChart renders the chart in chartDir and says what it left out.
// An error is helm's, prefixed with the chart's directory and release.
func RenderChart(chartDir string, opts Options) (*Result, error) {
	if !IsChart(chartDir) {
		return nil, fmt.Errorf("%s: not a Helm chart (no Chart.yaml)", chartDir)
	}
	var r Result
	if err := engines.Call(engines.OpHelmRender, Request{ChartDir: chartDir, Options: opts}, &r); err != nil {
		if engines.IsHelperError(err) {
			return nil, fmt.Errorf("%s: %w", Describe(chartDir, opts), err)
		}
		return nil, err // helm's, already naming the chart
	}
	return &r, nil
}

// Request is what engines.OpHelmRender renders.
type Request struct {
	ChartDir string  `json:"chartDir"`
	Options  Options `json:"options"`
}

// Release is the release name, defaulted as helm template defaults it.
func (o Options) Release() string {
	if o.ReleaseName == "" {
		return DefaultReleaseName
	}
	return o.ReleaseName
}

// ReleaseNamespace is the release namespace, defaulted.
func (o Options) ReleaseNamespace() string {
	if o.Namespace == "" {
		return DefaultNamespace
	}
	return o.Namespace
}

// Describe names the chart and release for messages:
// "chart charts/web (release web/release-name)".
func Describe(chartDir string, opts Options) string {
	return fmt.Sprintf("chart %s (release %s/%s)", filepath.ToSlash(chartDir), opts.ReleaseNamespace(), opts.Release())
}

// FallbackKubeVersion is the Kubernetes version of the k8s.io/api this module
// requires (go.mod; a test checks they agree), for builds without module
// information.
const FallbackKubeVersion = "v1.37.0"

// BuiltForKubeVersion is the Kubernetes version contourc's client
// libraries are built for: k8s.io/api v0.N.x is Kubernetes 1.N.
var BuiltForKubeVersion = sync.OnceValue(func() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "k8s.io/api" {
				if v, ok := kubeVersionOfAPI(m.Version); ok {
					return v
				}
			}
		}
	}
	return FallbackKubeVersion
})

// kubeVersionOfAPI maps a k8s.io/api module version (v0.37.2) to the
// Kubernetes minor it belongs to (v1.37.0).
func kubeVersionOfAPI(modVersion string) (string, bool) {
	rest, ok := strings.CutPrefix(modVersion, "v0.")
	if !ok {
		return "", false
	}
	minor, _, _ := strings.Cut(rest, ".")
	if minor == "" || strings.Trim(minor, "0123456789") != "" {
		return "", false
	}
	return "v1." + minor + ".0", true
}
