package serve

// A depth-first rewrite of a proto message that also descends into
// google.protobuf.Any values: Envoy keeps the parts serve has to change
// (config sources inside HTTP connection managers and TLS contexts, private
// keys inside secrets) in typed_config Anys, which a plain protoreflect walk
// would step over.

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
)

// rewrite calls visit on m and on every message inside it, parents before
// children, and reports whether anything changed. visit may modify the
// message it is given and reports whether it did; an Any whose content
// changed is packed again, deterministically, so equal content keeps giving
// equal bytes (and equal snapshot versions).
func rewrite(m proto.Message, visit func(protoreflect.Message) bool) (bool, error) {
	w := walker{visit: visit}
	return w.message(m.ProtoReflect())
}

// walker holds what one rewrite does.
type walker struct {
	visit func(protoreflect.Message) bool
}

func (w *walker) message(m protoreflect.Message) (bool, error) {
	if a, ok := m.Interface().(*anypb.Any); ok {
		return w.any(a)
	}
	changed := w.visit(m)
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		var c bool
		c, err = w.field(fd, v)
		changed = changed || c
		return err == nil
	})
	return changed, err
}

func (w *walker) field(fd protoreflect.FieldDescriptor, v protoreflect.Value) (bool, error) {
	changed := false
	switch {
	case fd.IsList() && fd.Message() != nil:
		l := v.List()
		for i := 0; i < l.Len(); i++ {
			c, err := w.message(l.Get(i).Message())
			changed = changed || c
			if err != nil {
				return changed, err
			}
		}
	case fd.IsMap() && fd.MapValue().Message() != nil:
		var err error
		v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
			var c bool
			c, err = w.message(mv.Message())
			changed = changed || c
			return err == nil
		})
		return changed, err
	case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
		return w.message(v.Message())
	}
	return changed, nil
}

// any rewrites the content of a. A type that is not linked into the
// binary cannot hold anything serve rewrites (config sources and secrets
// come from go-control-plane's own types), but it cannot be checked either,
// so it is an error rather than silently passed through.
func (w *walker) any(a *anypb.Any) (bool, error) {
	inner, err := a.UnmarshalNew()
	if err != nil {
		return false, fmt.Errorf("cannot unpack %s: %w", a.GetTypeUrl(), err)
	}
	changed, err := w.message(inner.ProtoReflect())
	if err != nil || !changed {
		return changed, err
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(inner)
	if err != nil {
		return true, err
	}
	a.Value = b
	return true, nil
}
