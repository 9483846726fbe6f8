// Package loader turns manifest files, directories, stdin and `kubectl get`
// dumps into typed Kubernetes objects, each remembering where it came from.
//
// It does what the API server would have done before Contour saw an object:
// strict decoding, defaulting (namespace, generation, CRD defaults),
// admission of custom resources against their CRDs with the API server's
// own code (schema and CEL rules, package admission), reading every served
// apiVersion of a kind into one internal version, and mirroring core/v1
// Endpoints into EndpointSlices.
//
// The pipeline, one file per step: load.go (paths to files, with
// loader/walk), read.go and inputsize.go (the bytes of each input, within
// the size limit), loader/substitute (Flux variables), the text, YAML and
// JSON of loader/internal/manifest (documents, with their bounds), split.go
// (documents and Lists to objects), classify.go, kinds.go and
// kinds_other.go (what each kind is; unserved kinds and versions of the
// read groups refused), object_decode.go with admit.go (custom resources
// through loader/admission, with its defaults put back) and the strict
// typed decoding of loader/internal/manifest (with the built-in kinds'
// coded defaults and rules of loader/builtin), meta.go (the API server's
// metadata rules), secret_types.go (the Secret types not kept),
// endpoints.go (Endpoints mirroring), order.go (duplicates and output
// order). Around it: notmanifest.go skips files that are not manifests
// (skipped.go), namespace.go places -n's namespace, secret_sources.go
// keeps the objects that stand for Secrets (cert-manager Certificates,
// SealedSecrets, ExternalSecrets, SOPS Secrets) for the standin package,
// kustomizations.go and helmcharts.go build kustomizations and render
// charts, follow.go decodes what loader/follow's engine builds of GitOps
// entry points (the followers are in loader/flux and loader/argocd), loader/mainbranch reads the fields of
// Contour's main branch and loader/contourconfig its configuration file.
package loader

import "github.com/contourc/contourc/loader/internal/object"

// Object is one decoded object and its source (loader/internal/object
// defines it, below loader/follow, which hands objects back and forth
// with the load).
type Object = object.Object

// StandIn names a stand-in object and what it stands for, as check
// reports it.
type StandIn struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	For       string `json:"for"`
}

func (s StandIn) String() string {
	return s.Kind + " " + s.Namespace + "/" + s.Name + " for " + s.For
}

// Result is what Load read.
type Result struct {
	Objects []Object
	// Read is how many objects the input held that contourc consumes:
	// core/v1 Endpoints count as themselves, though Objects has the
	// EndpointSlices mirrored from them instead (or nothing, when their
	// Service has slices of its own). Shown with -v.
	Read int
	// Skipped counts, by "apiVersion/Kind", the objects contourc does not
	// consume (Deployments, RBAC, CRDs...). Shown with -v.
	Skipped map[string]int
	// SkippedFiles are the files and directories left out (skipped.go),
	// in path order. Shown with -v, and counted by render and check.
	SkippedFiles []SkippedFile
	// SecretSources are the objects that stand for Secrets the input
	// does not hold (secret_sources.go): cert-manager Certificates,
	// SealedSecrets, ExternalSecrets and SOPS-encrypted Secrets, each an
	// Object whose Obj is *unstructured.Unstructured, in Objects' order.
	SecretSources []Object
	// Workloads are the Deployments, DaemonSets and ContourDeployments
	// (workloads.go), each an Object whose Obj is
	// *unstructured.Unstructured, in Objects' order.
	Workloads []Object
	// Warnings are what the load went past without failing: entries of a
	// kustomization left out, kustomizations skipped (kustomizations.go).
	Warnings []Warning
	// NotRead are the files of kustomizations' directories that they do
	// not use, which a walk therefore did not read. Shown with -v.
	NotRead []NotRead
	// GitOps are the GitOps objects of the input (IsGitOps): Flux
	// Kustomizations, GitRepositories and HelmReleases, Argo CD
	// Applications, each *unstructured.Unstructured, in Objects' order.
	// Without Options.Follow they are counted in Skipped instead.
	GitOps []Object
	// Entries say what became of each entry point followed or not
	// (Options.Follow), in the order they were met.
	Entries []EntryReport
	// Charts are the Helm charts rendered (helmcharts.go), in input
	// order. Shown with -v.
	Charts []RenderedChart
}

// RenderedChart is a Helm chart a load rendered.
type RenderedChart struct {
	Dir     string // the chart's directory, as given
	Via     string // "chart charts/web, release web/web"
	Chart   string // name-version, from its Chart.yaml
	Objects int    // objects of it that contourc uses, as "using N object(s)" counts them
}

// Warning is something a load went past rather than fail.
type Warning = object.Warning

// NotRead is a file a walk found in a kustomization's directory that the
// kustomization does not use.
type NotRead struct {
	File          string
	Kustomization string // the kustomization's directory
}
