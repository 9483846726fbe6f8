package diff

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
)

// anyName is the full name of google.protobuf.Any.
const anyName protoreflect.FullName = "google.protobuf.Any"

// deterministic marshals with map entries in key order, so that equal
// messages have equal bytes within one binary.
var deterministic = proto.MarshalOptions{Deterministic: true}

// walk calls fn on m and on every message nested in it, in field order.
// The messages inside Any fields are visited too: each is unpacked, walked
// and packed again, so fn may change them; packing is deterministic, which
// also makes two equal Any values byte-equal, as proto.Equal needs.
// An Any whose type is not linked into the binary is left as it is.
func walk(m protoreflect.Message, fn func(protoreflect.Message)) {
	if m.Descriptor().FullName() == anyName {
		a, ok := m.Interface().(*anypb.Any)
		if !ok {
			return
		}
		inner, err := a.UnmarshalNew()
		if err != nil {
			return
		}
		walk(inner.ProtoReflect(), fn)
		if b, err := deterministic.Marshal(inner); err == nil {
			a.Value = b
		}
		return
	}
	fn(m)
	// Fields are collected first: changing a message while ranging over it
	// is not allowed.
	var fields []protoreflect.FieldDescriptor
	m.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		fields = append(fields, fd)
		return true
	})
	for _, fd := range fields {
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() == nil {
				continue
			}
			mp := m.Mutable(fd).Map()
			mp.Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
				walk(v.Message(), fn)
				return true
			})
		case fd.IsList():
			if fd.Message() == nil {
				continue
			}
			list := m.Mutable(fd).List()
			for i := 0; i < list.Len(); i++ {
				walk(list.Get(i).Message(), fn)
			}
		case fd.Message() != nil:
			walk(m.Mutable(fd).Message(), fn)
		}
	}
}
