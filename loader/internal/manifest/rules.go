package manifest

import (
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// Defaults and required fields the API server has in code for built-in
// kinds (loader/builtin): custom resources get theirs from their CRD's
// schema instead (loader/admit.go). Rules are keyed by Go type and JSON field
// name, and the decoder applies them wherever the type appears.

// fieldKey names one JSON field of one Go struct type.
type fieldKey struct {
	Owner reflect.Type
	Name  string
}

// fieldRule is what the API server says about one field beyond its type.
type fieldRule struct {
	Def      *yaml.Node // default when the field is absent or null
	required bool
}

var FieldRules = map[fieldKey]*fieldRule{}

func ruleFor(sample any, field string) *fieldRule {
	k := fieldKey{reflect.TypeOf(sample), field}
	r := FieldRules[k]
	if r == nil {
		r = &fieldRule{}
		FieldRules[k] = r
	}
	return r
}

// DefaultField records a "+kubebuilder:default" marker: value is the
// default as YAML, as written in the marker.
func DefaultField(sample any, field, value string) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(value), &doc); err != nil || len(doc.Content) == 0 {
		panic(fmt.Sprintf("loader: bad default %q for %T.%s: %v", value, sample, field, err))
	}
	ruleFor(sample, field).Def = doc.Content[0]
}

// requireFields records fields the schema lists as required.
func requireFields(sample any, fields ...string) {
	for _, f := range fields {
		ruleFor(sample, f).required = true
	}
}
