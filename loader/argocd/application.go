// Package argocd follows Argo CD Applications (argoproj.io/v1alpha1) the
// way Argo CD's repo server turns their sources into manifests: which
// sources are in the repository being checked, what kind each is
// (directory, kustomize, helm: explicit, or discovered from the files at
// its path as Argo CD discovers it), which files a directory source reads
// (recurse, include and exclude globs matched as Argo CD matches them),
// the kustomize options Argo CD writes into the kustomization with
// `kustomize edit` before it builds (done here in memory, nothing is
// written), and the helm options it passes to `helm template`.
//
// It reads Applications and plans their sources, and its Follower
// (follow.go) gives the loader's following engine (loader/follow) each
// Application as an entry point that builds what its plan names, as
// package flux does for Flux's Kustomizations and HelmReleases.
package argocd

import (
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// Group is Argo CD's API group; Application and ApplicationSet are
// served in v1alpha1.
const (
	Group      = "argoproj.io"
	APIVersion = "argoproj.io/v1alpha1"
)

// IsApplication reports whether apiVersion and kind are an Argo CD
// Application.
func IsApplication(apiVersion, kind string) bool {
	return apiVersion == APIVersion && kind == "Application"
}

// IsApplicationSet reports whether apiVersion and kind are an Argo CD
// ApplicationSet: its Applications are made by the ApplicationSet
// controller from generators (clusters, git directories, pull requests)
// that need the cluster or the network, so contourc lists it and skips it.
func IsApplicationSet(apiVersion, kind string) bool {
	return apiVersion == APIVersion && kind == "ApplicationSet"
}

// Application is what contourc reads of an Argo CD Application.
type Application struct {
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Spec Spec `json:"spec"`
}

// Spec is an Application's spec, the fields that decide its manifests.
type Spec struct {
	Source      *Source     `json:"source,omitempty"`
	Sources     []Source    `json:"sources,omitempty"`
	Destination Destination `json:"destination"`
	Project     string      `json:"project"`
	// SourceHydrator, when set, makes Argo CD sync hydrated manifests
	// that it pushes to another branch: not what the checkout holds.
	SourceHydrator json.RawMessage `json:"sourceHydrator,omitempty"`
}

// Destination is where an Application's objects go; Namespace is the
// namespace of its namespaced objects that have none.
type Destination struct {
	Server    string `json:"server,omitempty"`
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// Source is one source of an Application.
type Source struct {
	RepoURL        string `json:"repoURL"`
	Path           string `json:"path,omitempty"`
	TargetRevision string `json:"targetRevision,omitempty"`
	// Chart names a chart of a Helm repository (or OCI registry) at
	// RepoURL: not a path of a Git repository.
	Chart     string           `json:"chart,omitempty"`
	Ref       string           `json:"ref,omitempty"`
	Name      string           `json:"name,omitempty"`
	Helm      *Helm            `json:"helm,omitempty"`
	Kustomize *Kustomize       `json:"kustomize,omitempty"`
	Directory *Directory       `json:"directory,omitempty"`
	Plugin    *json.RawMessage `json:"plugin,omitempty"`
}

// Helm is a source's spec.source.helm.
type Helm struct {
	ValueFiles              []string        `json:"valueFiles,omitempty"`
	Parameters              []HelmParameter `json:"parameters,omitempty"`
	FileParameters          []HelmParameter `json:"fileParameters,omitempty"`
	ReleaseName             string          `json:"releaseName,omitempty"`
	Values                  string          `json:"values,omitempty"`
	ValuesObject            json.RawMessage `json:"valuesObject,omitempty"`
	Namespace               string          `json:"namespace,omitempty"`
	KubeVersion             string          `json:"kubeVersion,omitempty"`
	APIVersions             []string        `json:"apiVersions,omitempty"`
	IgnoreMissingValueFiles bool            `json:"ignoreMissingValueFiles,omitempty"`
	SkipCrds                bool            `json:"skipCrds,omitempty"`
	SkipTests               bool            `json:"skipTests,omitempty"`
	Version                 string          `json:"version,omitempty"`
	PassCredentials         bool            `json:"passCredentials,omitempty"`
	SkipSchemaValidation    bool            `json:"skipSchemaValidation,omitempty"`
}

// HelmParameter is a --set (or --set-string, with ForceString) of a helm
// source; for fileParameters, Path is the file whose content is set.
type HelmParameter struct {
	Name        string `json:"name,omitempty"`
	Value       string `json:"value,omitempty"`
	Path        string `json:"path,omitempty"`
	ForceString bool   `json:"forceString,omitempty"`
}

// Kustomize is a source's spec.source.kustomize.
type Kustomize struct {
	NamePrefix             string            `json:"namePrefix,omitempty"`
	NameSuffix             string            `json:"nameSuffix,omitempty"`
	Images                 []string          `json:"images,omitempty"`
	Replicas               []Replica         `json:"replicas,omitempty"`
	CommonLabels           map[string]string `json:"commonLabels,omitempty"`
	CommonAnnotations      map[string]string `json:"commonAnnotations,omitempty"`
	ForceCommonLabels      bool              `json:"forceCommonLabels,omitempty"`
	ForceCommonAnnotations bool              `json:"forceCommonAnnotations,omitempty"`
	// CommonAnnotationsEnvsubst substitutes Argo CD's build environment
	// ($ARGOCD_APP_NAME...) in annotation values, as it always is in
	// label values and images.
	CommonAnnotationsEnvsubst bool             `json:"commonAnnotationsEnvsubst,omitempty"`
	LabelWithoutSelector      bool             `json:"labelWithoutSelector,omitempty"`
	LabelIncludeTemplates     bool             `json:"labelIncludeTemplates,omitempty"`
	Namespace                 string           `json:"namespace,omitempty"`
	Patches                   []map[string]any `json:"patches,omitempty"`
	Components                []string         `json:"components,omitempty"`
	IgnoreMissingComponents   bool             `json:"ignoreMissingComponents,omitempty"`
	Version                   string           `json:"version,omitempty"`
	KubeVersion               string           `json:"kubeVersion,omitempty"`
	APIVersions               []string         `json:"apiVersions,omitempty"`
}

// Replica is a kustomize replicas override (name=count).
type Replica struct {
	Name  string          `json:"name"`
	Count json.RawMessage `json:"count"`
}

// Directory is a source's spec.source.directory.
type Directory struct {
	Recurse                bool            `json:"recurse,omitempty"`
	Include                string          `json:"include,omitempty"`
	Exclude                string          `json:"exclude,omitempty"`
	DisableExtensionFilter bool            `json:"disableExtensionFilter,omitempty"`
	Jsonnet                json.RawMessage `json:"jsonnet,omitempty"`
}

// Decode reads an Application from its YAML or JSON text, as the API
// server would have stored it: a field of the wrong type is an error.
func Decode(data []byte) (*Application, error) {
	var app Application
	if err := yaml.Unmarshal(data, &app); err != nil {
		return nil, fmt.Errorf("Application: %w", err)
	}
	return &app, nil
}

// Multiple reports whether the Application uses spec.sources, which
// Argo CD then reads instead of spec.source.
func (a *Application) Multiple() bool { return len(a.Spec.Sources) > 0 }

// AllSources are the sources Argo CD generates manifests from: spec.sources
// when it has any, else spec.source.
func (a *Application) AllSources() []Source {
	if a.Multiple() {
		return a.Spec.Sources
	}
	if a.Spec.Source != nil {
		return []Source{*a.Spec.Source}
	}
	return nil
}

// RefOnly reports whether a source of a multi-source Application only
// lends its files to the others ($ref/values.yaml): Argo CD generates no
// manifests from a source with a ref, no path and no chart.
func (s Source) RefOnly(multiple bool) bool {
	return multiple && s.Ref != "" && s.Path == "" && s.Chart == ""
}

// Type is how Argo CD generates a source's manifests.
type Type string

const (
	TypeDirectory Type = "Directory"
	TypeKustomize Type = "Kustomize"
	TypeHelm      Type = "Helm"
	TypePlugin    Type = "Plugin"
)

// ExplicitType is the type a source states by its helm, kustomize,
// directory or plugin block, "" when it states none; stating two is the
// error Argo CD gives the Application.
func (s Source) ExplicitType() (Type, error) {
	var types []string
	if s.Kustomize != nil {
		types = append(types, string(TypeKustomize))
	}
	if s.Helm != nil {
		types = append(types, string(TypeHelm))
	}
	if s.Directory != nil {
		types = append(types, string(TypeDirectory))
	}
	if s.Plugin != nil {
		types = append(types, string(TypePlugin))
	}
	switch len(types) {
	case 0:
		return "", nil
	case 1:
		return Type(types[0]), nil
	}
	return "", fmt.Errorf("multiple application sources defined: %s", strings.Join(types, ","))
}

// Label names a source in messages: its name, or its place in
// spec.sources, or nothing for spec.source.
func (a *Application) Label(i int) string {
	if !a.Multiple() {
		return ""
	}
	if n := a.Spec.Sources[i].Name; n != "" {
		return fmt.Sprintf("source %q", n)
	}
	return fmt.Sprintf("source %d", i+1)
}
