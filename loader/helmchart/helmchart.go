// Package helmchart renders a Helm chart held in a directory the way
// `helm template` renders it, with Helm's own engine, client-only: no
// cluster is asked anything and nothing is fetched.
package helmchart

import (
	"errors"
	"os"
	"path/filepath"
)

// DefaultReleaseName is the release name `helm template` uses when none is
// given.
const DefaultReleaseName = "release-name"

// Options are the inputs of `helm template` that shape what a chart
// renders to.
type Options struct {
	// ReleaseName is .Release.Name; DefaultReleaseName when empty.
	ReleaseName string
	// Namespace is .Release.Namespace; "default" when empty.
	Namespace string
	// ValueFiles are read in order, each over the chart's values.yaml and
	// the files before it (helm template -f).
	ValueFiles []string
	// Values are merged over the value files (a HelmRelease's spec.values,
	// an Argo CD source's values or valuesObject).
	Values map[string]any
	// Set and SetString are applied last, as --set and --set-string are.
	Set, SetString []string
	// KubeVersion is .Capabilities.KubeVersion; when empty, the version
	// of Kubernetes contourc's client libraries are built for.
	KubeVersion string
}

// Manifest is one rendered template.
type Manifest struct {
	// Template is the template's path as helm template names it in its
	// "# Source:" comments, e.g. "web/templates/proxy.yaml".
	Template string
	// Content is the rendered YAML, possibly several documents.
	Content []byte
}

// IsChart reports whether dir holds a chart (a Chart.yaml).
func IsChart(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "Chart.yaml"))
	return err == nil && st.Mode().IsRegular()
}

// Render renders the chart in chartDir.
func Render(chartDir string, opts Options) ([]Manifest, error) {
	return nil, errors.New("helm chart rendering is not built yet")
}
