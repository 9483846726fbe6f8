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
// The pipeline, one file per step: walk.go (paths to files), text.go (bytes,
// BOM, line ends), yaml.go and json.go (text to yaml.Node documents, with
// bounds.go refusing alias bombs and deep nesting), split.go (documents and
// Lists to objects), classify.go and kinds.go (what each kind is), admit.go
// and unstructured.go (custom resources through admission, with its
// defaults put back), decode.go with fields.go, scalar.go and rules.go
// (strict typed decoding, with the built-in kinds' coded defaults of
// defaults_core.go), meta.go
// (metadata), endpoints.go (Endpoints mirroring), order.go (duplicates and
// output order).
package loader

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Source says where an object was read from.
type Source struct {
	File string // path as given (or "<stdin>")
	Line int    // 1-based line where the object's mapping starts: its first key in YAML, its "{" in JSON (for List items, the item's)
	Doc  int    // 0-based index of the YAML document (or JSON value) in the file; a List's items share the List's
}

func (s Source) String() string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	return s.File
}

// at is s moved to another line of the same document.
func (s Source) at(line int) Source {
	if line > 0 {
		s.Line = line
	}
	return s
}

// Object is one decoded object and its source.
//
// Obj is always a pointer to the typed struct of the internal version of its
// kind (see Kinds), e.g. *networkingv1.Ingress, *contourv1.HTTPProxy,
// *gatewayv1.Gateway, *discoveryv1.EndpointSlice.
type Object struct {
	Kind   string
	Source Source
	Obj    metav1.Object
	// APIVersion is the apiVersion as written in the input (e.g.
	// gateway.networking.k8s.io/v1beta1), before conversion to the internal
	// version that Obj's TypeMeta carries. Empty for objects the loader made
	// itself (EndpointSlices mirrored from Endpoints).
	APIVersion string
	// Extensions are the fields of Contour's main branch that Obj's Go
	// type lacks (see contour_extensions.go); nil when the object uses
	// none, and always nil for kinds other than HTTPProxy and
	// ContourConfiguration.
	Extensions *Extensions
}

// Result is what Load read.
type Result struct {
	Objects []Object
	// Skipped counts, by "apiVersion/Kind", the objects contourc does not
	// consume (Deployments, RBAC, CRDs...). Shown with -v.
	Skipped map[string]int
}

// Error is a problem with one input, pointing at the file, line and object.
type Error struct {
	Source    Source
	Kind      string // may be empty when the kind is unknown
	Namespace string
	Name      string
	Msg       string
}

func (e *Error) Error() string {
	obj := ""
	switch {
	case e.Kind != "" && e.Name != "" && e.Namespace != "":
		obj = fmt.Sprintf("%s %s/%s: ", e.Kind, e.Namespace, e.Name)
	case e.Kind != "" && e.Name != "":
		obj = fmt.Sprintf("%s %s: ", e.Kind, e.Name)
	case e.Kind != "":
		obj = e.Kind + ": "
	}
	return fmt.Sprintf("%s: %s%s", e.Source, obj, e.Msg)
}
