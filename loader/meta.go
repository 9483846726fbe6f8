package loader

import (
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/contourc/contourc/loader/builtin"
	"github.com/contourc/contourc/loader/internal/manifest"
)

// validateMeta applies the API server's checks on metadata that every
// object gets whatever its kind (ValidateObjectMetaAccessor of
// k8s.io/apimachinery api/validation, with the loader's name rule of the
// kind, see anyCase), worded as the API server words them. The common
// case, a plain name and plain labels and nothing else, allocates nothing.
func validateMeta(obj metav1.Object, spec *kindSpec) field.ErrorList {
	var out field.ErrorList
	metaPath := func(name string) *field.Path { return field.NewPath("metadata", name) }
	name, generateName := obj.GetName(), obj.GetGenerateName()
	if generateName != "" {
		// A prefix may end in "-": the API server masks it as a letter.
		prefix := generateName
		if len(prefix) > 1 && strings.HasSuffix(prefix, "-") {
			prefix = prefix[:len(prefix)-1] + "a"
		}
		for _, msg := range spec.validName(prefix) {
			out = append(out, field.Invalid(metaPath("generateName"), generateName, msg))
		}
	}
	switch {
	case name == "" && generateName != "":
		// The API server picks the name; without one there is no object
		// to translate, nor a name for references to it.
		out = append(out, field.Required(metaPath("name"), "generateName needs an API server to pick the name; give the object a name"))
	case name == "":
		out = append(out, field.Required(metaPath("name"), "name or generateName is required"))
	default:
		for _, msg := range spec.validName(name) {
			out = append(out, field.Invalid(metaPath("name"), name, msg))
		}
	}
	if ns := obj.GetNamespace(); ns != "" && spec.Namespaced && !builtin.DNS1123Label(ns, false) {
		out = manifest.AppendInvalid(out, metaPath("namespace"), ns, validation.IsDNS1123Label(ns))
	}
	if g := obj.GetGeneration(); g < 0 {
		out = append(out, apivalidation.ValidateNonnegativeField(g, metaPath("generation"))...)
	}
	if labels := obj.GetLabels(); !builtin.PlainLabels(labels) {
		out = append(out, metav1validation.ValidateLabels(labels, metaPath("labels"))...)
	}
	// Most objects have none of these: no path to build for them.
	if annotations := obj.GetAnnotations(); !builtin.PlainAnnotations(annotations) {
		out = append(out, apivalidation.ValidateAnnotations(annotations, metaPath("annotations"))...)
	}
	if refs := obj.GetOwnerReferences(); len(refs) > 0 {
		out = append(out, apivalidation.ValidateOwnerReferences(refs, metaPath("ownerReferences"))...)
	}
	if finalizers := obj.GetFinalizers(); len(finalizers) > 0 {
		out = append(out, apivalidation.ValidateFinalizers(finalizers, metaPath("finalizers"))...)
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
