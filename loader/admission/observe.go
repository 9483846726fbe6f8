package admission

import (
	"sort"
	"sync"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/parser"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// A rule's outcome (and cost) depends only on the parts of self it looks
// at: "Must have port for Service reference" reads a backendRef's group,
// kind and whether it has a port, never its name. Remembering outcomes by
// the whole value would make every route's rules run again, as each
// route's backendRefs name its own Service; remembering them by the parts
// the rules observe lets 5,000 routes of one shape run each rule once.
//
// observed finds those parts from the rules' expressions, parsed with
// CEL's own parser (its macros expanded into comprehensions), erring on
// the side of observing more: any use of a part of self other than
// selecting a field of it, testing a field's presence, taking its size,
// indexing a list or iterating a list observes that part whole, and an
// expression it cannot follow (oldSelf, bindings, variables it does not
// know, a parse error) observes all of self.

// observation is what the rules look at in a value.
type observation struct {
	whole bool // the value itself (all of it)
	size  bool // the number of items or keys
	// fields are the fields looked at: their presence, and what the
	// observation below says of their values.
	fields map[string]*observation
	names  []string     // the keys of fields, sorted
	items  *observation // each item of a list
}

func (o *observation) field(name string) *observation {
	if o.fields == nil {
		o.fields = map[string]*observation{}
	}
	c := o.fields[name]
	if c == nil {
		c = &observation{}
		o.fields[name] = c
	}
	return c
}

func (o *observation) item() *observation {
	if o.items == nil {
		o.items = &observation{}
	}
	return o.items
}

// finish sorts the field names, below o too.
func (o *observation) finish() {
	o.names = o.names[:0]
	for k, c := range o.fields {
		o.names = append(o.names, k)
		c.finish()
	}
	sort.Strings(o.names)
	if o.items != nil {
		o.items.finish()
	}
}

// place is a part of self an expression denotes: what is observed of it,
// and its schema (nil when unknown).
type place struct {
	obs    *observation
	schema *structuralschema.Structural
}

// observed is what the rules of schema node s look at in its values.
func observed(s *structuralschema.Structural) *observation {
	root := &observation{}
	p, err := celParser()
	if err != nil {
		return &observation{whole: true}
	}
	for _, r := range s.XValidations {
		tree, errs := p.Parse(common.NewTextSource(r.Rule))
		if errs != nil && len(errs.GetErrors()) > 0 {
			return &observation{whole: true}
		}
		a := &analysis{scope: map[string]place{"self": {obs: root, schema: s}}}
		a.value(tree.Expr())
		if a.unknown {
			return &observation{whole: true}
		}
	}
	root.finish()
	return root
}

// celParser parses as the API server's CEL environment does, with the
// standard macros and optional syntax; made once.
var celParser = sync.OnceValues(func() (*parser.Parser, error) {
	return parser.NewParser(parser.Macros(parser.AllMacros...), parser.EnableOptionalSyntax(true))
})

// analysis follows one expression.
type analysis struct {
	scope   map[string]place
	unknown bool // met something it cannot follow
}

// value notes that e's value is used as such: if e denotes a part of
// self, that part is observed whole.
func (a *analysis) value(e ast.Expr) {
	if p, ok := a.place(e); ok {
		p.obs.whole = true
	}
}

// place follows e, returning the part of self it denotes, if any, and
// noting what e observes on the way.
func (a *analysis) place(e ast.Expr) (place, bool) {
	switch e.Kind() {
	case ast.IdentKind:
		p, ok := a.scope[e.AsIdent()]
		if !ok {
			a.unknown = true // oldSelf, a variable, an unbound name
		}
		return p, ok
	case ast.SelectKind:
		return a.selectField(e.AsSelect())
	case ast.CallKind:
		return a.call(e.AsCall())
	case ast.ComprehensionKind:
		a.comprehension(e.AsComprehension())
	case ast.ListKind:
		for _, x := range e.AsList().Elements() {
			a.value(x)
		}
	case ast.MapKind:
		for _, en := range e.AsMap().Entries() {
			a.value(en.AsMapEntry().Key())
			a.value(en.AsMapEntry().Value())
		}
	case ast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			a.value(f.AsStructField().Value())
		}
	case ast.LiteralKind:
	default:
		a.unknown = true
	}
	return place{}, false
}

// selectField follows x.f and has(x.f).
func (a *analysis) selectField(s ast.SelectExpr) (place, bool) {
	p, ok := a.place(s.Operand())
	if !ok {
		return place{}, false
	}
	c := place{obs: p.obs.field(s.FieldName()), schema: fieldSchema(p.schema, s.FieldName())}
	if s.IsTestOnly() {
		return place{}, false // presence only: noted by field
	}
	return c, true
}

// call follows size(x), x[i] and any other function, whose arguments are
// used as values.
func (a *analysis) call(c ast.CallExpr) (place, bool) {
	args := c.Args()
	if c.IsMemberFunction() {
		args = append([]ast.Expr{c.Target()}, args...)
	}
	switch {
	case c.FunctionName() == "size" && len(args) == 1:
		if p, ok := a.place(args[0]); ok {
			if isCollection(p.schema) {
				p.obs.size = true
			} else {
				p.obs.whole = true // a string's length
			}
		}
		return place{}, false
	case c.FunctionName() == "_[_]" && len(args) == 2:
		p, ok := a.place(args[0])
		a.value(args[1])
		if !ok {
			return place{}, false
		}
		if p.schema == nil || p.schema.Type != "array" || p.schema.Items == nil {
			p.obs.whole = true // a map's entry, by a key computed
			return place{}, false
		}
		p.obs.size = true // whether the index is in range
		return place{obs: p.obs.item(), schema: p.schema.Items}, true
	}
	for _, x := range args {
		a.value(x)
	}
	return place{}, false
}

// comprehension follows the macros (all, exists, exists_one, map,
// filter): iterating a list observes its size, and the iteration
// variable denotes each item.
func (a *analysis) comprehension(c ast.ComprehensionExpr) {
	saved := maps(a.scope)
	defer func() { a.scope = saved }()
	p, ok := a.place(c.IterRange())
	switch {
	case c.HasIterVar2():
		a.unknown = true
		return
	case ok && p.schema != nil && p.schema.Type == "array" && p.schema.Items != nil:
		p.obs.size = true
		a.scope[c.IterVar()] = place{obs: p.obs.item(), schema: p.schema.Items}
	case ok:
		p.obs.whole = true // a map's keys, which are not parts of self
		a.scope[c.IterVar()] = place{obs: &observation{}}
	default:
		a.scope[c.IterVar()] = place{obs: &observation{}}
	}
	// The accumulator only ever holds what the loop step puts in it,
	// whose parts of self are observed whole there.
	a.value(c.AccuInit())
	a.scope[c.AccuVar()] = place{obs: &observation{}}
	a.value(c.LoopCondition())
	a.value(c.LoopStep())
	a.value(c.Result())
}

func maps(m map[string]place) map[string]place {
	c := make(map[string]place, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func fieldSchema(s *structuralschema.Structural, name string) *structuralschema.Structural {
	if s == nil {
		return nil
	}
	if p, ok := s.Properties[name]; ok {
		return &p
	}
	if s.AdditionalProperties != nil {
		return s.AdditionalProperties.Structural
	}
	return nil
}

func isCollection(s *structuralschema.Structural) bool {
	return s != nil && (s.Type == "array" || s.Type == "object")
}
