package loader

import (
	"go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/contourc/contourc/loader/internal/manifest"
	"github.com/contourc/contourc/loader/mainbranch"
)

// decodeObject turns a raw object of a consumed kind into its internal Go
// type, strictly, with defaults applied and metadata checked.
func decodeObject(raw rawObject, spec *kindSpec) (Object, []error) {
	obj := spec.New()
	node := withoutStatus(raw.node)
	if spec.crd {
		var errs []error
		if node, errs = admit(raw, node, spec); errs != nil {
			return Object{}, append(metadataErrors(raw, spec), errs...)
		}
	}
	var ext *mainbranch.Extensions
	var extErrs []manifest.FieldError
	if spec.detach != nil {
		node, ext, extErrs = spec.detach(node)
	}
	ferrs := append(manifest.DecodeInto(node, obj), extErrs...)

	// The internal version is what downstream code sees, whichever
	// served version the input used.
	obj.(runtime.Object).GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{
		Group: spec.Group, Version: spec.Version, Kind: spec.Kind,
	})

	ns := obj.GetNamespace()
	if ns == "" && spec.Namespaced {
		ns = metav1.NamespaceDefault
	}
	errAt := func(line int, msg string) error {
		return &Error{Source: raw.source.At(line), Kind: spec.Kind, Namespace: ns, Name: obj.GetName(), Msg: msg}
	}
	var errs []error
	for _, fe := range ferrs {
		errs = append(errs, errAt(fe.Line, fe.Msg))
	}
	if merrs := validateMeta(obj, spec); len(merrs) > 0 {
		for _, fe := range manifest.FieldErrors(raw.node, merrs) {
			errs = append(errs, errAt(fe.Line, fe.Msg))
		}
	}
	if len(errs) > 0 {
		return Object{}, errs
	}
	defaultMeta(obj, spec)
	if spec.finish != nil {
		spec.finish(obj)
	}
	// The API server validates a built-in object after defaulting it
	// (validate_*.go); a valid object costs no allocation here.
	if spec.validate != nil {
		if verrs := spec.validate(obj); len(verrs) > 0 {
			for _, fe := range manifest.FieldErrors(raw.node, verrs) {
				errs = append(errs, errAt(fe.Line, fe.Msg))
			}
			return Object{}, errs
		}
	}
	if ext != nil {
		mainbranch.PlaceFields(ext.MainBranchFields, raw.source)
	}
	return Object{Kind: spec.Kind, Source: raw.source, Obj: obj, APIVersion: raw.apiVersion, Extensions: ext}, nil
}

// metadataErrors are the API server's errors on an object's metadata
// (name, labels...), for an object admission refused: the API server
// reports them together with the schema's. Only the metadata is decoded;
// what is wrong in it beyond that, admission has reported.
func metadataErrors(raw rawObject, spec *kindSpec) []error {
	meta := manifest.MapValue(raw.node, "metadata")
	if meta == nil {
		return nil
	}
	obj := spec.New()
	only := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: raw.node.Line,
		Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: "metadata"}, meta}}
	if len(manifest.DecodeInto(only, obj)) > 0 {
		return nil
	}
	merrs := validateMeta(obj, spec)
	if len(merrs) == 0 {
		return nil
	}
	return objectErrors(raw, spec, manifest.FieldErrors(raw.node, merrs))
}

// withoutStatus is the object's mapping without its status. Status is
// written by controllers, not users; the API server ignores it on create,
// and `kubectl get` output carries Contour's own status, which should not
// be able to break decoding.
func withoutStatus(n *yaml.Node) *yaml.Node {
	if manifest.MapValue(n, "status") == nil {
		return n
	}
	c := *n
	c.Content = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != "status" {
			c.Content = append(c.Content, n.Content[i], n.Content[i+1])
		}
	}
	return &c
}
