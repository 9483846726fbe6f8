package loader

import (
	"fmt"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// metaProblem is a metadata problem and the path of the offending field.
type metaProblem struct {
	path []string // under the object, e.g. metadata, name
	msg  string
}

// validateMeta applies the API server's checks on metadata that every
// object gets whatever its kind.
func validateMeta(obj metav1.Object, spec *kindSpec) []metaProblem {
	var out []metaProblem
	switch name := obj.GetName(); {
	case name == "" && obj.GetGenerateName() != "":
		out = append(out, metaProblem{[]string{"metadata", "generateName"}, "metadata.name is required: generateName needs an API server to pick the name"})
	case name == "":
		out = append(out, metaProblem{[]string{"metadata"}, "metadata.name is required"})
	default:
		if errs := spec.validName(name); len(errs) > 0 {
			out = append(out, metaProblem{[]string{"metadata", "name"}, fmt.Sprintf("metadata.name: invalid value %q: %s", name, strings.Join(errs, "; "))})
		}
	}
	if ns := obj.GetNamespace(); ns != "" && spec.Namespaced && !dns1123Label(ns, false) {
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			out = append(out, metaProblem{[]string{"metadata", "namespace"}, fmt.Sprintf("metadata.namespace: invalid value %q: %s", ns, strings.Join(errs, "; "))})
		}
	}
	if labels := obj.GetLabels(); !plainLabels(labels) {
		for _, e := range metav1validation.ValidateLabels(labels, field.NewPath("metadata", "labels")) {
			out = append(out, metaProblem{[]string{"metadata", "labels"}, e.Error()})
		}
	}
	// Most objects have no annotations: no path to build for them.
	if annotations := obj.GetAnnotations(); len(annotations) > 0 {
		for _, e := range apivalidation.ValidateAnnotations(annotations, field.NewPath("metadata", "annotations")) {
			out = append(out, metaProblem{[]string{"metadata", "annotations"}, e.Error()})
		}
	}
	return out
}

// defaultMeta does what the API server does to metadata on create: a
// namespaced object without a namespace goes to "default" (kubectl's
// context namespace when none is given); a cluster-scoped object has no
// namespace; generation starts at 1. Fields only the server writes and
// nobody reads (managedFields) are dropped; the rest (uid,
// resourceVersion, creationTimestamp) are kept as `kubectl get` printed
// them, since Gateway API conflict resolution orders by creationTimestamp.
func defaultMeta(obj metav1.Object, spec *kindSpec) {
	switch {
	case !spec.Namespaced:
		obj.SetNamespace("")
	case obj.GetNamespace() == "":
		obj.SetNamespace(metav1.NamespaceDefault)
	}
	if obj.GetGeneration() == 0 {
		obj.SetGeneration(1)
	}
	obj.SetManagedFields(nil)
}
