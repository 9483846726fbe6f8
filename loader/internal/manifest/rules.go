package manifest

import (
	"fmt"
	"reflect"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Defaults and required fields the API server has in code for built-in
// kinds (defaults_core.go): custom resources get theirs from their CRD's
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

// fieldRuleSet are rules by field.
type fieldRuleSet map[fieldKey]*fieldRule

// fieldRules are the rules, built on first use rather than at start-up
// (parsing the defaults' YAML is not for `contourc version`), and never
// changed after.
var fieldRules = sync.OnceValue(func() fieldRuleSet {
	rules := fieldRuleSet{}
	rules.addCoreDefaults()
	return rules
})

// FieldRules are the rules the decoder applies (for loader's tests, which
// check them against the kinds' types).
func FieldRules() fieldRuleSet { return fieldRules() }

func (rules fieldRuleSet) ruleFor(sample any, field string) *fieldRule {
	k := fieldKey{reflect.TypeOf(sample), field}
	r := rules[k]
	if r == nil {
		r = &fieldRule{}
		rules[k] = r
	}
	return r
}

// DefaultField records a "+kubebuilder:default" marker: value is the
// default as YAML, as written in the marker.
func (rules fieldRuleSet) defaultField(sample any, field, value string) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(value), &doc); err != nil || len(doc.Content) == 0 {
		panic(fmt.Sprintf("loader: bad default %q for %T.%s: %v", value, sample, field, err))
	}
	rules.ruleFor(sample, field).Def = doc.Content[0]
}

// requireFields records fields the schema lists as required.
func (rules fieldRuleSet) requireFields(sample any, fields ...string) {
	for _, f := range fields {
		rules.ruleFor(sample, f).required = true
	}
}
