package manifest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// MaxErrorsPerObject stops one hopeless object (written for a different
// schema, say) from burying the errors of every other object.
const MaxErrorsPerObject = 50

// FieldError is one problem found while decoding an object.
type FieldError struct {
	Line int
	Msg  string
}

// Decoder decodes yaml.Node trees into typed API structs the way the API
// server's strict decoding does: unknown and duplicate fields are errors,
// as are values of the wrong JSON type (a number where a string belongs);
// the API server's coded defaults of built-in kinds are filled in (see
// rules.go). Working on nodes rather than on a generic map means every
// error knows its line.
type Decoder struct {
	Errs []FieldError
	path []string // field path of the value being decoded, for messages
	// flags holds the fieldsSeen flags of the mappings being decoded, one
	// stretch per level: a slice made for each mapping was 30,000
	// allocations loading 5,000 HTTPProxies.
	flags []bool
}

// DecodeInto decodes the mapping n into the struct pointed to by out.
func DecodeInto(n *yaml.Node, out any) []FieldError {
	return DecodeAt(n, out, nil)
}

// DecodeAt is decodeInto for a value found at path in its object, so that
// messages name the value's full path.
func DecodeAt(n *yaml.Node, out any, path []string) []FieldError {
	// Room for the paths of a manifest's depth: grown from nothing, the
	// path was reallocated three or four times for every object.
	d := &Decoder{path: append(make([]string, 0, len(path)+8), path...)}
	d.Decode(n, reflect.ValueOf(out).Elem())
	return d.Errs
}

func (d *Decoder) Decode(n *yaml.Node, v reflect.Value) { d.decodePlanned(n, v, nil) }

// decodePlanned is decode for a caller that knows the plan of v's type
// with its pointers taken away; a nil plan is looked up.
func (d *Decoder) decodePlanned(n *yaml.Node, v reflect.Value, plan *typePlan) {
	n = ResolveAlias(n)
	if IsNull(n) {
		// JSON null leaves a field at its zero value, and the API server
		// drops nulls before defaulting; either way: nothing to do.
		return
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	if plan == nil {
		plan = PlanFor(v.Type())
	}
	switch {
	case plan.viaJSON:
		d.decodeViaJSON(n, v)
	case v.Kind() == reflect.Struct:
		d.decodeStruct(n, v, plan.Fields)
	case v.Kind() == reflect.Map:
		d.decodeMap(n, v, plan)
	case v.Kind() == reflect.Slice:
		d.decodeSlice(n, v, plan)
	case v.Kind() == reflect.Interface:
		d.decodeViaJSON(n, v)
	default:
		d.decodeScalar(n, v)
	}
}

// fieldsSeen tracks the fields of one mapping while it is decoded.
type fieldsSeen struct {
	seen    []bool          // the key appeared (a second time is a duplicate)
	given   []bool          // it had a non-null value (else defaults apply)
	unknown map[string]bool // unknown keys already reported
}

func (d *Decoder) decodeStruct(n *yaml.Node, v reflect.Value, si *StructInfo) {
	if n.Kind != yaml.MappingNode {
		d.wrongType(n, "an object")
		return
	}
	// This mapping's flags follow those of the mappings it is in; the
	// stretch is given back when it is decoded. (A nested mapping may move
	// d.flags; this one keeps its own slice of the array it got.)
	base := len(d.flags)
	d.flags = append(d.flags, make([]bool, 2*len(si.List))...)
	flags := d.flags[base:]
	fs := fieldsSeen{seen: flags[:len(si.List)], given: flags[len(si.List):]}
	pairs := MappingPairs(n)
	for i := 0; i+1 < len(pairs); i += 2 {
		d.decodeField(ResolveAlias(pairs[i]), pairs[i+1], v, si, &fs)
	}
	d.FillAbsent(n, v, si, fs.given)
	d.flags = d.flags[:base]
}

// decodeField decodes one key and value of a mapping into struct v.
func (d *Decoder) decodeField(k, val *yaml.Node, v reflect.Value, si *StructInfo, fs *fieldsSeen) {
	if k.Kind != yaml.ScalarNode {
		d.errorf(k.Line, "%s: a field name must be a string", d.pathString())
		return
	}
	f := si.ByName[k.Value]
	switch {
	case f == nil && fs.unknown[k.Value], f != nil && fs.seen[f.ord]:
		d.fieldErrorf(k.Line, k.Value, "duplicate field %q")
		return
	case f == nil:
		if fs.unknown == nil {
			fs.unknown = map[string]bool{}
		}
		fs.unknown[k.Value] = true
		d.fieldErrorf(k.Line, k.Value, "unknown field %q")
		return
	}
	fs.seen[f.ord] = true
	if IsNull(ResolveAlias(val)) {
		return // absent, as far as defaults and required fields go
	}
	fs.given[f.ord] = true
	fv := FieldValue(v, f.Index)
	d.path = append(d.path, f.name)
	d.decodePlanned(val, fv, f.typePlan())
	d.path = d.path[:len(d.path)-1]
}

// FillAbsent applies the defaults of the fields a mapping did not give,
// and reports missing required ones at the mapping's line.
func (d *Decoder) FillAbsent(n *yaml.Node, v reflect.Value, si *StructInfo, given []bool) {
	for _, f := range si.Ruled {
		switch {
		case given[f.ord]:
		case f.rule.Def != nil:
			fv := FieldValue(v, f.Index)
			if def, ok := f.ScalarDefault(fv.Type()); ok {
				setCopy(fv, def)
				continue
			}
			d.path = append(d.path, f.name)
			d.Decode(f.rule.Def, fv)
			d.path = d.path[:len(d.path)-1]
		case f.rule.required:
			d.fieldErrorf(n.Line, f.name, "required field %q is missing")
		}
	}
}

// decodeMap decodes a mapping into the map v, whose plan is plan.
func (d *Decoder) decodeMap(n *yaml.Node, v reflect.Value, plan *typePlan) {
	if n.Kind != yaml.MappingNode {
		d.wrongType(n, "an object")
		return
	}
	t := v.Type()
	if t.Key().Kind() != reflect.String {
		d.errorf(n.Line, "%s: cannot decode a map keyed by %s", d.pathString(), t.Key())
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMapWithSize(t, len(n.Content)/2))
	}
	elem := plan.elemPlan(t)
	pairs := MappingPairs(n)
	var typed any
	if v.CanInterface() {
		typed = v.Interface()
	}
	switch m := typed.(type) {
	case map[string]string: // labels, annotations, selectors
		decodeMapOf(d, pairs, m, elem)
		return
	case map[string][]byte: // a Secret's data
		decodeMapOf(d, pairs, m, elem)
		return
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		k, val := ResolveAlias(pairs[i]), pairs[i+1]
		if k.Kind != yaml.ScalarNode {
			d.errorf(k.Line, "%s: a key must be a string", d.pathString())
			continue
		}
		// JSON object keys are strings whatever they look like, so a key
		// written 80: is the string "80".
		key := reflect.New(t.Key()).Elem()
		key.SetString(k.Value)
		if v.MapIndex(key).IsValid() {
			d.fieldErrorf(k.Line, k.Value, "duplicate key %q")
			continue
		}
		value := reflect.New(t.Elem()).Elem()
		d.path = append(d.path, k.Value)
		d.decodePlanned(val, value, elem)
		d.path = d.path[:len(d.path)-1]
		v.SetMapIndex(key, value)
	}
}

// decodeMapOf is decodeMap for a map of a plain Go type, set directly
// rather than through reflect, each value decoded into one variable: two
// values made and two map operations through reflect for every entry were
// half of decoding a Service.
func decodeMapOf[V any](d *Decoder, pairs []*yaml.Node, m map[string]V, elem *typePlan) {
	var value, zero V
	rv := reflect.ValueOf(&value).Elem()
	for i := 0; i+1 < len(pairs); i += 2 {
		k, val := ResolveAlias(pairs[i]), pairs[i+1]
		if k.Kind != yaml.ScalarNode {
			d.errorf(k.Line, "%s: a key must be a string", d.pathString())
			continue
		}
		if _, dup := m[k.Value]; dup {
			d.fieldErrorf(k.Line, k.Value, "duplicate key %q")
			continue
		}
		value = zero
		d.path = append(d.path, k.Value)
		d.decodePlanned(val, rv, elem)
		d.path = d.path[:len(d.path)-1]
		m[k.Value] = value
	}
}

// decodeSlice decodes a sequence into the slice v, whose plan is plan.
func (d *Decoder) decodeSlice(n *yaml.Node, v reflect.Value, plan *typePlan) {
	if v.Type().Elem().Kind() == reflect.Uint8 {
		d.decodeBytes(n, v)
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.wrongType(n, "a list")
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	elem := plan.elemPlan(v.Type())
	for i, item := range n.Content {
		d.path = append(d.path, indexSegment(i))
		d.decodePlanned(item, s.Index(i), elem)
		d.path = d.path[:len(d.path)-1]
	}
	v.Set(s)
}

// indexSegments are the path segments of the first list indexes, made
// once rather than for every item decoded.
var indexSegments = func() (segs [64]string) {
	for i := range segs {
		segs[i] = "[" + strconv.Itoa(i) + "]"
	}
	return segs
}()

// indexSegment is the path segment of list index i: "[i]".
func indexSegment(i int) string {
	if i < len(indexSegments) {
		return indexSegments[i]
	}
	return "[" + strconv.Itoa(i) + "]"
}

// decodeBytes reads a []byte the way encoding/json does: from a base64
// string. Secret data that is not valid base64 is refused by the API
// server, and so here.
func (d *Decoder) decodeBytes(n *yaml.Node, v reflect.Value) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.wrongType(n, "a base64-encoded string")
		return
	}
	b, err := base64.StdEncoding.DecodeString(n.Value)
	if err != nil {
		d.errorf(n.Line, "%s: invalid base64 data: %v", d.pathString(), err)
		return
	}
	v.SetBytes(b)
}

// decodeViaJSON hands the value to the type's own UnmarshalJSON (Time,
// IntOrString, Quantity, RawExtension...), through its JSON form.
func (d *Decoder) decodeViaJSON(n *yaml.Node, v reflect.Value) {
	if decodeIntOrString(n, v) {
		return
	}
	b, err := NodeToJSON(n)
	if err == nil {
		err = json.Unmarshal(b, v.Addr().Interface())
	}
	if err != nil {
		d.errorf(n.Line, "%s: %v", d.pathString(), err)
	}
}

// MappingPairs is the key/value list of a mapping with YAML merge keys
// ("<<: *base") expanded, as kubectl's YAML reader expands them.
func MappingPairs(n *yaml.Node) []*yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].ShortTag() == "!!merge" {
			return expandMerges(n)
		}
	}
	return n.Content
}

// expandMerges lists a mapping's own pairs, then the pairs of the mappings
// it merges for keys not seen yet: keys written in the mapping win over
// merged ones, and earlier merged mappings over later ones.
func expandMerges(n *yaml.Node) []*yaml.Node {
	var pairs, merged []*yaml.Node
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.ShortTag() == "!!merge" {
			merged = append(merged, mergeSources(val)...)
			continue
		}
		seen[k.Value] = true
		pairs = append(pairs, k, val)
	}
	for _, src := range merged {
		content := MappingPairs(src)
		for i := 0; i+1 < len(content); i += 2 {
			if k := content[i]; !seen[k.Value] {
				seen[k.Value] = true
				pairs = append(pairs, k, content[i+1])
			}
		}
	}
	return pairs
}

// mergeSources are the mappings a merge key's value names: one mapping or
// a list of them.
func mergeSources(val *yaml.Node) []*yaml.Node {
	val = ResolveAlias(val)
	items := []*yaml.Node{val}
	if val.Kind == yaml.SequenceNode {
		items = val.Content
	}
	var out []*yaml.Node
	for _, m := range items {
		if m = ResolveAlias(m); m.Kind == yaml.MappingNode {
			out = append(out, m)
		}
	}
	return out
}

func (d *Decoder) wrongType(n *yaml.Node, want string) {
	hint := ""
	if want == "a string" && n.Kind == yaml.ScalarNode && n.Style == 0 {
		hint = fmt.Sprintf(" (write %q to make it a string)", n.Value)
	}
	d.errorf(n.Line, "%s: expected %s, got %s%s", d.pathString(), want, DescribeNode(n), hint)
}

// fieldErrorf reports a problem with field name of the value being
// decoded; format has one %q for the field's full path.
func (d *Decoder) fieldErrorf(line int, name, format string) {
	d.path = append(d.path, name)
	d.errorf(line, format, d.pathString())
	d.path = d.path[:len(d.path)-1]
}

func (d *Decoder) errorf(line int, format string, args ...any) {
	if len(d.Errs) == MaxErrorsPerObject {
		d.Errs = append(d.Errs, FieldError{Line: line, Msg: "too many errors, giving up on this object"})
	}
	if len(d.Errs) > MaxErrorsPerObject {
		return
	}
	d.Errs = append(d.Errs, FieldError{Line: line, Msg: fmt.Sprintf(format, args...)})
}

// pathString renders the current path as kubectl does: spec.rules[0].name.
func (d *Decoder) pathString() string {
	var b strings.Builder
	for _, p := range d.path {
		if b.Len() > 0 && !strings.HasPrefix(p, "[") {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// DescribeNode says what a node is, for "expected X, got Y" messages.
func DescribeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "an object"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return fmt.Sprintf("the string %q", n.Value)
		case "!!int", "!!float":
			return "the number " + n.Value
		case "!!bool":
			return "the boolean " + n.Value
		case "!!null":
			return "null"
		}
		return fmt.Sprintf("%s %q", n.ShortTag(), n.Value)
	}
	return "an alias"
}

// decodeIntOrString decodes the common forms of an IntOrString (every
// Service port's targetPort) directly, as its UnmarshalJSON would from
// their JSON form, and reports whether it did: going through JSON was a
// third of decoding a Service. Other values, and numbers JSON would not
// fit in an int32, take the JSON path and its errors.
func decodeIntOrString(n *yaml.Node, v reflect.Value) bool {
	target, ok := v.Addr().Interface().(*intstr.IntOrString)
	if !ok || n.Kind != yaml.ScalarNode {
		return false
	}
	switch n.ShortTag() {
	case "!!str":
		*target = intstr.IntOrString{Type: intstr.String, StrVal: n.Value}
		return true
	case "!!int":
		i, err := yamlInt(n)
		if err != nil || i != int64(int32(i)) {
			return false
		}
		*target = intstr.IntOrString{Type: intstr.Int, IntVal: int32(i)}
		return true
	}
	return false
}
