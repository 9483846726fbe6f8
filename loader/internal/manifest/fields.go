package manifest

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
)

// typePlan is what the decoder needs to know about one Go type, worked out
// once per type: Kubernetes API structs are decoded thousands of times per
// run and reflection on struct tags is not free.
type typePlan struct {
	viaJSON bool        // the type has its own UnmarshalJSON (Time, IntOrString, Quantity...)
	Fields  *StructInfo // for structs
	// elem is, for a slice or map, the plan of its values (pointers
	// taken away), looked up on first use: a lookup for every list and
	// map decoded was 2% of loading HTTPRoutes.
	elem atomic.Pointer[typePlan]
}

// elemPlan returns the plan of the values of t, the slice or map type p
// is the plan of.
func (p *typePlan) elemPlan(t reflect.Type) *typePlan {
	if e := p.elem.Load(); e != nil {
		return e
	}
	e := PlanFor(derefType(t.Elem()))
	p.elem.Store(e)
	return e
}

// StructInfo lists the JSON fields of a struct, with the fields of inlined
// (embedded) structs flattened in, as encoding/json sees them.
type StructInfo struct {
	ByName map[string]*FieldInfo
	List   []*FieldInfo
	// Ruled are the fields that have a default or are required: the ones
	// to look at when absent.
	Ruled []*FieldInfo
}

// FieldInfo is one JSON field of a struct.
type FieldInfo struct {
	name  string       // JSON name
	ord   int          // position in structInfo.list
	Index []int        // reflect index path, through embedded structs
	owner reflect.Type // the struct that declares the field (markers live there)
	rule  *fieldRule   // defaults and validation from the CRD schema, may be nil
	// plan is the plan of the field's type, pointers taken away, looked
	// up on first use: a lookup per decoded value was a tenth of decoding.
	elem reflect.Type
	plan atomic.Pointer[typePlan]
	// scalarDef is the field's default decoded once, when it is a scalar
	// or a pointer to one that decodes without error (see scalarDefault).
	scalarDef atomic.Pointer[reflect.Value]
	noScalar  atomic.Bool // the default is not such a value
}

// ScalarDefault returns the field's default, decoded once into a value of
// the field's type t, when it is a string, number or boolean, or a
// pointer to one, and decodes without error: absent fields get a copy of
// it rather than a decoding of its YAML each time (half a dozen defaults
// per HTTPRoute rule, 3% of loading HTTPRoutes). Other defaults, and one
// whose decoding reports an error, are decoded for each value.
func (f *FieldInfo) ScalarDefault(t reflect.Type) (reflect.Value, bool) {
	if v := f.scalarDef.Load(); v != nil {
		return *v, true
	}
	if f.noScalar.Load() || !isScalarKind(derefType(t).Kind()) {
		f.noScalar.Store(true)
		return reflect.Value{}, false
	}
	v := reflect.New(t).Elem()
	if errs := DecodeAt(f.rule.Def, v.Addr().Interface(), nil); len(errs) > 0 {
		f.noScalar.Store(true)
		return reflect.Value{}, false
	}
	f.scalarDef.Store(&v)
	return v, true
}

func isScalarKind(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// setCopy sets v to a copy of the scalar or pointer to a scalar def: a
// pointer is not shared.
func setCopy(v, def reflect.Value) {
	if def.Kind() != reflect.Pointer {
		v.Set(def)
		return
	}
	if def.IsNil() {
		v.SetZero()
		return
	}
	p := reflect.New(def.Type().Elem())
	p.Elem().Set(def.Elem())
	v.Set(p)
}

// typePlan returns the plan of the field's values.
func (f *FieldInfo) typePlan() *typePlan {
	if p := f.plan.Load(); p != nil {
		return p
	}
	p := PlanFor(f.elem)
	f.plan.Store(p)
	return p
}

// derefType is t with its pointers taken away: the type decode fills in.
func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

var (
	plans           sync.Map // reflect.Type -> *typePlan
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
)

// PlanFor returns the decoding plan of t.
func PlanFor(t reflect.Type) *typePlan {
	if p, ok := plans.Load(t); ok {
		return p.(*typePlan)
	}
	p := &typePlan{
		viaJSON: reflect.PointerTo(t).Implements(jsonUnmarshaler),
	}
	if t.Kind() == reflect.Struct && !p.viaJSON {
		p.Fields = buildStructInfo(t)
	}
	actual, _ := plans.LoadOrStore(t, p)
	return actual.(*typePlan)
}

func buildStructInfo(t reflect.Type) *StructInfo {
	si := &StructInfo{ByName: map[string]*FieldInfo{}}
	addFields(si, t, nil)
	rules := fieldRules()
	for i, f := range si.List {
		f.ord = i
		f.rule = rules[fieldKey{f.owner, f.name}]
		if f.rule != nil && (f.rule.Def != nil || f.rule.required) {
			si.Ruled = append(si.Ruled, f)
		}
	}
	return si
}

// addFields adds the JSON fields of t (at reflect index prefix) to si. A
// struct's own fields are added before those of the structs it embeds, so
// that, as in encoding/json, the shallower of two same-named fields wins.
func addFields(si *StructInfo, t reflect.Type, prefix []int) {
	var embedded []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, skip := JSONName(f)
		if skip {
			continue
		}
		if name == "" && f.Anonymous && isStructOrPtrToStruct(f.Type) {
			embedded = append(embedded, f)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := si.ByName[name]; dup {
			continue
		}
		fi := &FieldInfo{name: name, Index: appendIndex(prefix, i), owner: t, elem: derefType(f.Type)}
		si.ByName[name] = fi
		si.List = append(si.List, fi)
	}
	for _, f := range embedded {
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		addFields(si, ft, appendIndex(prefix, f.Index[0]))
	}
}

// jsonName is the field's name in its json tag ("" when the tag gives
// none) and whether the field is excluded from JSON.
func JSONName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", true
	}
	name, _, _ := strings.Cut(tag, ",")
	return name, false
}

func isStructOrPtrToStruct(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

func appendIndex(prefix []int, i int) []int {
	out := make([]int, len(prefix)+1)
	copy(out, prefix)
	out[len(prefix)] = i
	return out
}

// FieldValue returns the field at index in struct v, allocating embedded
// struct pointers on the way as encoding/json does.
func FieldValue(v reflect.Value, index []int) reflect.Value {
	if len(index) == 1 { // a field of the struct itself, the common case
		return v.Field(index[0])
	}
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}
