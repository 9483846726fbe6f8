package admission

import (
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/runtime"
)

// defaulter is the defaults skeleton of a schema (skeleton.go) in the
// form the API server's defaulting walk (structuraldefaulting.Default)
// reads it, built once: that walk copies a place's whole Structural to
// the heap for every field of the value it visits (`prop, found :=
// s.Properties[k]; Default(x[k], &prop)`), 37 MB at 5,000 HTTPProxies,
// for a result that depends only on the few fields kept here.
// applyDefaults walks these instead, in the same order with the same
// rules; TestDefaultsAgreeWithAPIServer holds it to the library's walk.
type defaulter struct {
	// defaults are the properties of this place that have one.
	defaults []propertyDefault
	// fields are the properties with defaults at or below them,
	// additional the additionalProperties' and items the items' place.
	fields     map[string]*defaulter
	additional *defaulter
	items      *defaulter
	// nullable and value are this place's own: a null where nullable is
	// false is replaced by value (by nothing when value is nil), as
	// isNonNullableNull has it for additionalProperties and items.
	nullable bool
	value    any
}

type propertyDefault struct {
	name     string
	value    any
	nullable bool
}

// newDefaulter is s as a defaulter; nil for a nil s.
func newDefaulter(s *structuralschema.Structural) *defaulter {
	if s == nil {
		return nil
	}
	d := &defaulter{nullable: s.Generic.Nullable, value: s.Default.Object}
	for k := range s.Properties {
		p := s.Properties[k]
		if p.Default.Object != nil {
			d.defaults = append(d.defaults, propertyDefault{name: k, value: p.Default.Object, nullable: p.Generic.Nullable})
		}
		if d.fields == nil {
			d.fields = map[string]*defaulter{}
		}
		d.fields[k] = newDefaulter(&p)
	}
	if s.AdditionalProperties != nil {
		d.additional = newDefaulter(s.AdditionalProperties.Structural)
	}
	d.items = newDefaulter(s.Items)
	return d
}

// apply defaults x as structuraldefaulting.Default(x, s) does for the s
// d was made from.
func (d *defaulter) apply(x any) {
	if d == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for _, p := range d.defaults {
			if v, found := x[p.name]; !found || (v == nil && !p.nullable) {
				x[p.name] = runtime.DeepCopyJSONValue(p.value)
			}
		}
		if d.fields == nil && d.additional == nil {
			return
		}
		for k, v := range x {
			if c, found := d.fields[k]; found {
				c.apply(v)
			} else if a := d.additional; a != nil {
				if v == nil && !a.nullable {
					v = runtime.DeepCopyJSONValue(a.value)
					x[k] = v
				}
				a.apply(v)
			}
		}
	case []any:
		it := d.items
		if it == nil {
			return
		}
		for i, v := range x {
			if v == nil && !it.nullable {
				v = runtime.DeepCopyJSONValue(it.value)
				x[i] = v
			}
			it.apply(v)
		}
	}
}
