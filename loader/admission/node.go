package admission

import (
	"sync"
	"sync/atomic"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// node is one place of a CRD version's schema: what the schema validator
// and the CEL validator check there, built the first time a value sits
// there. The API server compiles a whole CRD's validators up front (the
// HTTPRoute CRD's take over 100 ms); contourc compiles the places its
// input reaches, once per process.
type node struct {
	props *apiextensionsinternal.JSONSchemaProps // the validation schema, as the API server reads it
	st    *structuralschema.Structural
	// bare is st with no x-kubernetes-validations below it: the
	// type a rule of this place sees, without compiling the rules of
	// the places below, which are nodes of their own.
	bare *structuralschema.Structural
	// resource is true at the root and at embedded resources, where
	// CEL sees apiVersion, kind and metadata.
	resource bool

	childOnce  sync.Once
	fields     map[string]*node
	items      *node
	additional *node

	shallowOnce sync.Once
	shallow     *spec.Schema // props without the schemas of its children
	// kindOnly says that shallow looks at nothing but a value's JSON
	// type (and nullability), and validKinds are the types (kindBit)
	// known to pass.
	kindOnly   bool
	validKinds atomic.Uint32

	celOnce     sync.Once
	cel         *cel.Validator
	observation *observation // what the rules look at (observe.go)

	rulesOnce sync.Once
	rules     bool // n or a place below it has x-kubernetes-validations
	listsOnce sync.Once
	lists     bool // n or a place below it has an x-kubernetes-list-type

	// scalarsValid are the scalar values known to pass shallow.
	scalarsValid sync.Map
	// shapesValid are the shapes (see shape) of lists and maps known to
	// pass shallow.
	shapesValid sync.Map
	// celPassed maps the hash of a value that passed this place's rules
	// to the cost the rules took.
	celPassed sync.Map
}

func newRoot(props *apiextensionsinternal.JSONSchemaProps, st *structuralschema.Structural) *node {
	bare := st.DeepCopy()
	dropRules(bare)
	return &node{props: props, st: st, bare: bare, resource: true}
}

// dropRules removes the x-kubernetes-validations of s and below.
func dropRules(s *structuralschema.Structural) {
	if s == nil {
		return
	}
	s.XValidations = nil
	dropRules(s.Items)
	for k, p := range s.Properties {
		dropRules(&p)
		s.Properties[k] = p
	}
	if s.AdditionalProperties != nil {
		dropRules(s.AdditionalProperties.Structural)
	}
}

// children builds the nodes of n's properties, items and additional
// properties.
func (n *node) children() {
	n.childOnce.Do(func() {
		if len(n.st.Properties) > 0 {
			n.fields = make(map[string]*node, len(n.st.Properties))
			for k := range n.st.Properties {
				st, bare := n.st.Properties[k], n.bare.Properties[k]
				var props *apiextensionsinternal.JSONSchemaProps
				if p, ok := n.props.Properties[k]; ok {
					props = &p
				}
				n.fields[k] = &node{props: props, st: &st, bare: &bare, resource: st.XEmbeddedResource}
			}
		}
		if n.st.Items != nil {
			var props *apiextensionsinternal.JSONSchemaProps
			if n.props != nil && n.props.Items != nil {
				props = n.props.Items.Schema
			}
			n.items = &node{props: props, st: n.st.Items, bare: n.bare.Items, resource: n.st.Items.XEmbeddedResource}
		}
		if ap := n.st.AdditionalProperties; ap != nil && ap.Structural != nil {
			var props *apiextensionsinternal.JSONSchemaProps
			if n.props != nil && n.props.AdditionalProperties != nil {
				props = n.props.AdditionalProperties.Schema
			}
			n.additional = &node{props: props, st: ap.Structural, bare: n.bare.AdditionalProperties.Structural, resource: ap.Structural.XEmbeddedResource}
		}
	})
}

// shallowSchema is n's validation schema without the schemas of its
// properties, items and additional properties, converted as the API
// server converts a CRD's schema for its validator (formats it does not
// support are dropped). The validator checks the children where they are
// walked to. Junctors (allOf, anyOf, oneOf, not) are kept whole.
func (n *node) shallowSchema() *spec.Schema {
	n.shallowOnce.Do(func() {
		if n.props == nil {
			return
		}
		p := *n.props
		p.Properties = nil
		p.Items = nil
		p.AdditionalProperties = nil
		out := &spec.Schema{}
		if err := validation.ConvertJSONSchemaPropsWithPostProcess(&p, out, validation.StripUnsupportedFormatsPostProcessorForVersion(environment.DefaultCompatibilityVersion())); err != nil {
			return
		}
		n.shallow = out
		n.kindOnly = typeOnly(out)
	})
	return n.shallow
}

// typeOnly says whether the schema validator, given s, checks nothing but
// a value's type: s has no constraint on values, lengths, keys or items.
func typeOnly(s *spec.Schema) bool {
	return len(s.Enum) == 0 && s.Pattern == "" && s.Format == "" &&
		s.MinLength == nil && s.MaxLength == nil && s.Minimum == nil && s.Maximum == nil && s.MultipleOf == nil &&
		len(s.AllOf) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 && s.Not == nil &&
		!s.UniqueItems && s.MinItems == nil && s.MaxItems == nil && s.Items == nil && s.AdditionalItems == nil &&
		len(s.Required) == 0 && s.MinProperties == nil && s.MaxProperties == nil &&
		len(s.Properties) == 0 && len(s.PatternProperties) == 0 && s.AdditionalProperties == nil && len(s.Dependencies) == 0
}

// celValidator is the CEL validator of n's own rules, nil when it has
// none, compiled with the API server's per-call cost limit.
func (n *node) celValidator() *cel.Validator {
	n.celOnce.Do(func() {
		if len(n.st.XValidations) == 0 {
			return
		}
		s := *n.bare
		s.XValidations = n.st.XValidations
		n.cel = cel.NewValidator(&s, n.resource, celconfig.PerCallLimit)
		n.observation = observed(n.st)
	})
	return n.cel
}
