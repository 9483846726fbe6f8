package admission

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
)

// formats are the string formats the API server's schema validator knows.
var formats = strfmt.Default

// Admit does to obj, the content of one object of gvk as written (status
// left out), what the API server does on create, in the order
// apiextensions' customresource registry does it: decode, prune (unknown
// fields are errors, as kubectl's default Strict field validation makes
// them), default, validate against the OpenAPI schema (with list-map keys
// and embedded objects' metadata), and validate the CEL rules. obj is
// defaulted in place. The errors are the API server's, with their field
// paths; a schema the embedded CRDs lack is an error too.
func Admit(obj map[string]any, gvk GVK) field.ErrorList {
	v, err := lookup(gvk)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	root, err := v.compiled()
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	errs := decode(obj, v)
	errs = append(errs, prune(obj, v)...)
	if len(errs) > 0 {
		return errs
	}
	applyDefaults(obj, v)
	errs = validateSchema(obj, root, v)
	if !root.hasRules() {
		return errs
	}
	if blocked, err := blocking(errs); blocked {
		return append(errs, err)
	}
	return append(errs, validateCEL(obj, root)...)
}

func lookup(gvk GVK) (*crdVersion, error) {
	m, err := versions()
	if err != nil {
		return nil, err
	}
	v := m[gvk]
	if v == nil {
		return nil, fmt.Errorf("no CRD schema for %s %s/%s", gvk.Kind, gvk.Group, gvk.Version)
	}
	return v, nil
}

// decode is the first thing the API server's decoder adds to JSON
// decoding for a custom resource: the unknown fields of its metadata are
// reported, as kubectl's default Strict field validation has them
// reported (`unknown field "metadata.x"`).
func decode(obj map[string]any, v *crdVersion) field.ErrorList {
	if plainMetadata(obj["metadata"]) {
		return nil
	}
	_, _, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("metadata"), nil, err.Error())}
	}
	return unknownFields(unknown)
}

// prune is the rest: the fields the schema does not know are removed and
// reported (`unknown field "spec.x"`), so are the nulls it does not allow
// that have no default, and embedded objects' metadata is coerced.
func prune(obj map[string]any, v *crdVersion) field.ErrorList {
	var unknown []string
	if !prunesNothing(obj, v.root, true) {
		unknown = structuralpruning.PruneWithOptions(obj, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	}
	if hasNull(obj) {
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, v.structural)
	}
	var ferr *field.Error
	if v.embedded != nil {
		var paths []string
		ferr, paths = schemaobjectmeta.CoerceWithOptions(nil, obj, v.embedded, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
		unknown = append(unknown, paths...)
	}
	errs := unknownFields(unknown)
	if ferr != nil {
		errs = append(errs, ferr)
	}
	return errs
}

func unknownFields(paths []string) field.ErrorList {
	var errs field.ErrorList
	for _, p := range paths {
		errs = append(errs, &field.Error{Type: ErrorTypeUnknownField, Field: p, Detail: fmt.Sprintf("unknown field %q", p)})
	}
	return errs
}

// ErrorTypeUnknownField marks a strict decoding error: the API server
// reports those as `strict decoding error: unknown field "spec.x"`, not
// as a field.Error of a type of its own.
const ErrorTypeUnknownField field.ErrorType = "FieldValueUnknown"

// applyDefaults applies the schema's defaults, as the API server's
// decoder does after pruning (structuraldefaulting.Default, in the form
// of defaults.go).
func applyDefaults(obj map[string]any, v *crdVersion) {
	v.defaulter.apply(obj)
}

// hasNull says whether a null is anywhere in v: without one, pruning
// nulls changes nothing.
func hasNull(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, x := range v {
			if hasNull(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if hasNull(x) {
				return true
			}
		}
	}
	return false
}

// validateSchema validates obj against the OpenAPI schema, the
// x-kubernetes-list-type invariants and the metadata of embedded objects.
func validateSchema(obj map[string]any, root *node, v *crdVersion) field.ErrorList {
	w := schemaWalk{}
	w.walk(root, obj)
	errs := w.errs
	if v.embedded != nil {
		errs = append(errs, schemaobjectmeta.Validate(context.Background(), nil, obj, v.embedded, false)...)
	}
	if v.lists != nil && !listsUnique(obj, root) {
		errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, v.lists, obj)...)
	}
	return errs
}

// blocking reproduces the API server's refusal to run CEL rules on an
// object whose schema errors would make them fail or mislead
// (hasBlockingErr in apiextensions' customresource strategy).
func blocking(errs field.ErrorList) (bool, *field.Error) {
	for _, err := range errs {
		switch err.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
		}
	}
	return false, nil
}

// schemaWalk validates a value node by node: at each, the node's own
// constraints (type, enum, pattern, format, bounds, required, junctors)
// through the API server's schema validator, then its children. This is
// what the validator's own recursion does, but a scalar value seen at a
// place before is not validated again: the 5,000 routes of a large input
// repeat their path types, ports and header names.
type schemaWalk struct {
	path []segment
	errs field.ErrorList
	enc  encoder
}

// segment is one step of a field path: a property name or a list index.
type segment struct {
	name  string
	index int // -1 for a name
}

func (w *schemaWalk) walk(n *node, v any) {
	w.checkShallow(n, v)
	switch v := v.(type) {
	case map[string]any:
		n.children()
		if n.fields == nil && n.additional == nil {
			return
		}
		// In map order: errors are sorted by where they are.
		for k, x := range v {
			c := n.fields[k]
			if c == nil {
				c = n.additional
			}
			if c == nil {
				continue
			}
			w.path = append(w.path, segment{name: k, index: -1})
			w.walk(c, x)
			w.path = w.path[:len(w.path)-1]
		}
	case []any:
		n.children()
		if n.items == nil {
			return
		}
		for i, x := range v {
			w.path = append(w.path, segment{index: i})
			w.walk(n.items, x)
			w.path = w.path[:len(w.path)-1]
		}
	}
}

// checkShallow validates v against n's own constraints. A value whose
// part these constraints look at (shape) passed here before passes again.
func (w *schemaWalk) checkShallow(n *node, v any) {
	s := n.shallowSchema()
	if s == nil {
		return
	}
	if n.kindOnly {
		// Only the value's JSON type counts here.
		bit := kindBit(v)
		if n.validKinds.Load()&bit != 0 {
			return
		}
		if w.validate(s, v) {
			n.validKinds.Or(bit)
		}
		return
	}
	key, scalar := scalarKey(v)
	var shape valueHash
	if scalar {
		if _, ok := n.scalarsValid.Load(key); ok {
			return
		}
	} else {
		w.enc.reset()
		n.shape(&w.enc, v)
		shape = hashBytes(w.enc.buf)
		if _, ok := n.shapesValid.Load(shape); ok {
			return
		}
	}
	if !w.validate(s, v) {
		return
	}
	switch {
	case scalar && scalarsRemembered.Add(1) <= maxRemembered:
		n.scalarsValid.Store(key, struct{}{})
	case !scalar && shapesRemembered.Add(1) <= maxRemembered:
		n.shapesValid.Store(shape, struct{}{})
	}
}

// validate runs the API server's schema validator on v with schema s,
// and says whether v passed; if not, it validates again where v is, for
// the API server's messages, which name the place.
func (w *schemaWalk) validate(s *spec.Schema, v any) bool {
	if validation.NewRatchetingSchemaValidator(s, nil, "", formats).Validate(v).IsValid() {
		return true
	}
	errs := validation.ValidateCustomResource(nil, v, validation.NewRatchetingSchemaValidator(s, nil, w.pathString(), formats))
	w.errs = append(w.errs, errs...)
	return false
}

// kindBit is v's JSON type as a bit of node.validKinds.
func kindBit(v any) uint32 {
	switch v.(type) {
	case nil:
		return 1
	case bool:
		return 2
	case string:
		return 4
	case int64:
		return 8
	case float64:
		return 16
	case []any:
		return 32
	case map[string]any:
		return 64
	}
	return 0 // never remembered
}

// shape writes what n's own constraints look at in the list or map v:
// its kind always; its keys for required, minProperties and
// maxProperties; its length for minItems and maxItems; all of it for
// enum, uniqueItems and the junctors, which see values whole.
func (n *node) shape(e *encoder, v any) {
	p := n.props
	if p == nil || len(p.Enum) > 0 || p.UniqueItems || len(p.AllOf) > 0 || len(p.AnyOf) > 0 || len(p.OneOf) > 0 || p.Not != nil {
		e.value(v)
		return
	}
	switch v := v.(type) {
	case map[string]any:
		e.buf = append(e.buf, 'm')
		if len(p.Required) > 0 || p.MinProperties != nil || p.MaxProperties != nil {
			e.uvarint(len(v))
			for _, k := range sortedKeys(v) {
				e.str(k)
			}
		}
	case []any:
		e.buf = append(e.buf, 'a')
		if p.MinItems != nil || p.MaxItems != nil {
			e.uvarint(len(v))
		}
	default:
		e.value(v)
	}
}

// pathString renders the walk's path as the schema validator names
// places: spec.rules[0].matches.
func (w *schemaWalk) pathString() string {
	var b strings.Builder
	for _, s := range w.path {
		if s.index >= 0 {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.name)
	}
	return b.String()
}

// scalarKey is v as a map key, when v is a scalar.
func scalarKey(v any) (any, bool) {
	switch v.(type) {
	case string, int64, float64, bool:
		return v, true
	}
	return nil, false
}

// validateCEL evaluates the x-kubernetes-validations rules of every place
// of obj, with the API server's cost budget for one object.
func validateCEL(obj map[string]any, root *node) field.ErrorList {
	w := celWalk{budget: celconfig.RuntimeCELCostBudget}
	w.walk(root, obj)
	return w.errs
}

// plainMetadata says whether m is metadata the API server's decoder reads
// without error or unknown field for certain: a map of name, namespace
// and generateName strings and of labels and annotations maps of strings.
// Those are nearly all objects in a repository, and the decoder's reading
// (GetObjectMetaWithOptions: JSON out, strict JSON in) was a fifth of
// admission's time.
func plainMetadata(m any) bool {
	fields, ok := m.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range fields {
		switch k {
		case "name", "namespace", "generateName":
			if _, ok := v.(string); !ok {
				return false
			}
		case "labels", "annotations":
			if !stringMap(v) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func stringMap(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, x := range m {
		if _, ok := x.(string); !ok {
			return false
		}
	}
	return true
}
