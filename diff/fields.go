package diff

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// fieldDiff lists the fields that differ between two messages of the same
// type, at the deepest level where they still read well: google.protobuf
// types (durations, wrappers) are compared whole, Structs key by key, Any
// values unpacked, and list items with a name matched by name.
func fieldDiff(a, b proto.Message) []FieldChange {
	var out []FieldChange
	diffMessage("", a.ProtoReflect(), b.ProtoReflect(), &out)
	return out
}

func diffMessage(path string, a, b protoreflect.Message, out *[]FieldChange) {
	if !a.IsValid() && !b.IsValid() {
		return
	}
	if a.IsValid() && b.IsValid() && a.Descriptor().FullName() == structName {
		diffStruct(path, a, b, out)
		return
	}
	if !a.IsValid() || !b.IsValid() || isLeafMessage(a.Descriptor()) {
		if !proto.Equal(a.Interface(), b.Interface()) {
			add(out, path, formatMessage(a), formatMessage(b))
		}
		return
	}
	if a.Descriptor().FullName() == anyName {
		diffAny(path, a, b, out)
		return
	}
	fields := a.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if !a.Has(fd) && !b.Has(fd) {
			continue
		}
		p := join(path, string(fd.Name()))
		switch {
		case fd.IsList():
			diffList(p, fd, a.Get(fd).List(), b.Get(fd).List(), out)
		case fd.IsMap():
			diffMap(p, fd, a.Get(fd).Map(), b.Get(fd).Map(), out)
		case fd.Message() != nil:
			diffMessage(p, presentMessage(a, fd), presentMessage(b, fd), out)
		default:
			va, vb := formatScalar(a, fd), formatScalar(b, fd)
			if va != vb {
				add(out, p, va, vb)
			}
		}
	}
}

// presentMessage is the message in field fd of m, or an invalid message when
// the field is unset, so that "unset" and "set to defaults" differ.
func presentMessage(m protoreflect.Message, fd protoreflect.FieldDescriptor) protoreflect.Message {
	if !m.Has(fd) {
		return m.Get(fd).Message().Type().Zero()
	}
	return m.Get(fd).Message()
}

// diffAny compares the messages inside two Any values when both are of the
// same known type, and the Any values whole otherwise.
func diffAny(path string, a, b protoreflect.Message, out *[]FieldChange) {
	aa, _ := a.Interface().(*anypb.Any)
	ab, _ := b.Interface().(*anypb.Any)
	if aa != nil && ab != nil && aa.GetTypeUrl() == ab.GetTypeUrl() {
		ia, errA := aa.UnmarshalNew()
		ib, errB := ab.UnmarshalNew()
		if errA == nil && errB == nil {
			diffMessage(path, ia.ProtoReflect(), ib.ProtoReflect(), out)
			return
		}
	}
	if !proto.Equal(a.Interface(), b.Interface()) {
		add(out, path, formatMessage(a), formatMessage(b))
	}
}

// structName is google.protobuf.Struct, the JSON-like type of metadata.
const structName protoreflect.FullName = "google.protobuf.Struct"

// diffStruct compares two Structs key by key, nested Structs too, so that
// one changed metadata value reads as "[key]: old → new" rather than as
// both whole documents.
func diffStruct(path string, a, b protoreflect.Message, out *[]FieldChange) {
	sa, _ := a.Interface().(*structpb.Struct)
	sb, _ := b.Interface().(*structpb.Struct)
	for _, k := range unionKeys(sa.GetFields(), sb.GetFields()) {
		va, vb := sa.GetFields()[k], sb.GetFields()[k]
		p := path + "[" + k + "]"
		if va.GetStructValue() != nil && vb.GetStructValue() != nil {
			diffStruct(p, va.GetStructValue().ProtoReflect(), vb.GetStructValue().ProtoReflect(), out)
			continue
		}
		if !proto.Equal(va, vb) {
			add(out, p, formatMessage(va.ProtoReflect()), formatMessage(vb.ProtoReflect()))
		}
	}
}

// diffList compares two lists. Messages that all carry a distinct name are
// matched by name, so inserting one item does not shift every other; lists
// of the same length are compared item by item; otherwise the items only
// one side has are listed.
func diffList(path string, fd protoreflect.FieldDescriptor, a, b protoreflect.List, out *[]FieldChange) {
	if fd.Message() != nil {
		if na, nb := itemNames(a), itemNames(b); na != nil && nb != nil {
			diffNamedList(path, a, b, na, nb, out)
			return
		}
	}
	if a.Len() == b.Len() {
		for i := 0; i < a.Len(); i++ {
			p := fmt.Sprintf("%s[%d]", path, i)
			if fd.Message() != nil {
				diffMessage(p, a.Get(i).Message(), b.Get(i).Message(), out)
				continue
			}
			if va, vb := formatValue(fd, a.Get(i)), formatValue(fd, b.Get(i)); va != vb {
				add(out, p, va, vb)
			}
		}
		return
	}
	fa, fb := formatItems(fd, a), formatItems(fd, b)
	for _, v := range multisetMinus(fa, fb) {
		add(out, path, v, "")
	}
	for _, v := range multisetMinus(fb, fa) {
		add(out, path, "", v)
	}
}

// itemNames returns the "name" of every item of a list of messages, or nil
// when some item has none or two share one.
func itemNames(l protoreflect.List) []string {
	if l.Len() == 0 {
		return []string{}
	}
	nameField := l.Get(0).Message().Descriptor().Fields().ByName("name")
	if nameField == nil || nameField.Kind() != protoreflect.StringKind || nameField.IsList() {
		return nil
	}
	names := make([]string, l.Len())
	seen := map[string]bool{}
	for i := range names {
		n := l.Get(i).Message().Get(nameField).String()
		if n == "" || seen[n] {
			return nil
		}
		seen[n] = true
		names[i] = n
	}
	return names
}

func diffNamedList(path string, a, b protoreflect.List, na, nb []string, out *[]FieldChange) {
	ia, ib := indexOf(na), indexOf(nb)
	for i, n := range na {
		p := path + "[" + n + "]"
		if j, ok := ib[n]; ok {
			diffMessage(p, a.Get(i).Message(), b.Get(j).Message(), out)
		} else {
			add(out, p, formatMessage(a.Get(i).Message()), "")
		}
	}
	for j, n := range nb {
		if _, ok := ia[n]; !ok {
			add(out, path+"["+n+"]", "", formatMessage(b.Get(j).Message()))
		}
	}
	// Order matters in most named lists (HTTP filters run in order).
	var ca, cb []string
	for _, n := range na {
		if _, ok := ib[n]; ok {
			ca = append(ca, n)
		}
	}
	for _, n := range nb {
		if _, ok := ia[n]; ok {
			cb = append(cb, n)
		}
	}
	if !slices.Equal(ca, cb) {
		add(out, path+" (order)", strings.Join(ca, ", "), strings.Join(cb, ", "))
	}
}

func diffMap(path string, fd protoreflect.FieldDescriptor, a, b protoreflect.Map, out *[]FieldChange) {
	keys := map[string]protoreflect.MapKey{}
	collect := func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys[k.String()] = k
		return true
	}
	a.Range(collect)
	b.Range(collect)
	vfd := fd.MapValue()
	for _, ks := range slices.Sorted(maps.Keys(keys)) {
		k := keys[ks]
		p := path + "[" + ks + "]"
		va, vb := a.Get(k), b.Get(k)
		if vfd.Message() != nil {
			diffMessage(p, mapMessage(a, k), mapMessage(b, k), out)
			continue
		}
		fa, fb := "", ""
		if a.Has(k) {
			fa = formatValue(vfd, va)
		}
		if b.Has(k) {
			fb = formatValue(vfd, vb)
		}
		if fa != fb {
			add(out, p, fa, fb)
		}
	}
}

// mapMessage is the message at key k of m, or an invalid message when m
// has no such key.
func mapMessage(m protoreflect.Map, k protoreflect.MapKey) protoreflect.Message {
	if !m.Has(k) {
		return m.NewValue().Message().Type().Zero()
	}
	return m.Get(k).Message()
}

func indexOf(names []string) map[string]int {
	m := make(map[string]int, len(names))
	for i, n := range names {
		m[n] = i
	}
	return m
}

// multisetMinus returns the items of a that b does not have, counting
// duplicates.
func multisetMinus(a, b []string) []string {
	count := map[string]int{}
	for _, v := range b {
		count[v]++
	}
	var out []string
	for _, v := range a {
		if count[v] > 0 {
			count[v]--
			continue
		}
		out = append(out, v)
	}
	return out
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func add(out *[]FieldChange, path, old, new string) {
	*out = append(*out, FieldChange{Path: path, Old: old, New: new})
}
