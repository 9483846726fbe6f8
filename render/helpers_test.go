package render

import (
	"path/filepath"
	"testing"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

// eachCorpusCase calls check with the resources contourc translates for
// each shared parity case that it reads and translates (a tenth of them
// with -short), skipping when ../shared is absent.
func eachCorpusCase(t *testing.T, check func(name string, r *translate.Resources)) {
	t.Helper()
	inputs, _ := filepath.Glob("../../shared/conformance/*/*/input")
	if len(inputs) == 0 {
		t.Skip("../shared/conformance not present")
	}
	if testing.Short() {
		inputs = inputs[:len(inputs)/10]
	}
	for _, in := range inputs {
		loaded, err := loader.Load([]string{in}, loader.Options{})
		if err != nil {
			continue // refused inputs have nothing to print
		}
		res, err := translate.Translate(loaded.Objects, translate.Options{})
		if err != nil {
			continue
		}
		check(filepath.Base(filepath.Dir(in)), &res.Resources)
	}
}

func unpack[T proto.Message](t testing.TB, a *anypb.Any) T {
	t.Helper()
	m, err := a.UnmarshalNew()
	if err != nil {
		t.Fatal(err)
	}
	v, ok := m.(T)
	if !ok {
		t.Fatalf("typed config is %T", m)
	}
	return v
}

// repack applies change to the content of a, in place.
func repack[T proto.Message](t testing.TB, a *anypb.Any, change func(T)) {
	t.Helper()
	m := unpack[T](t, a)
	change(m)
	if err := a.MarshalFrom(m); err != nil {
		t.Fatal(err)
	}
}

func unpackFirstFilter[T proto.Message](t testing.TB, l *listenerv3.Listener) T {
	t.Helper()
	return unpack[T](t, l.GetFilterChains()[0].GetFilters()[0].GetTypedConfig())
}

// resourcesCopy is a deep copy of resources, and of the typed configs their
// Unpacked holds, to tell whether rendering them changed them.
type resourcesCopy struct {
	messages []proto.Message              // resourceMessages, copied
	unpacked map[*anypb.Any]proto.Message // by the Any in the resources
}

func cloneResources(r *translate.Resources) resourcesCopy {
	c := resourcesCopy{unpacked: map[*anypb.Any]proto.Message{}}
	for _, m := range resourceMessages(r) {
		c.messages = append(c.messages, proto.Clone(m))
	}
	for a, m := range unpackedOf(r) {
		c.unpacked[a] = proto.Clone(m)
	}
	return c
}

// sameResources fails unless r is as it was when before was taken.
func sameResources(t *testing.T, r *translate.Resources, before resourcesCopy) {
	t.Helper()
	now := resourceMessages(r)
	if len(now) != len(before.messages) {
		t.Fatalf("rendering changed the number of resources: %d, was %d", len(now), len(before.messages))
	}
	for i, m := range now {
		if !proto.Equal(m, before.messages[i]) {
			t.Errorf("rendering changed resource %d (%T)", i, m)
		}
	}
	unpacked := unpackedOf(r)
	if len(unpacked) != len(before.unpacked) {
		t.Errorf("rendering changed what Unpacked holds: %d typed configs, was %d", len(unpacked), len(before.unpacked))
	}
	for a, m := range unpacked {
		if !proto.Equal(m, before.unpacked[a]) {
			t.Errorf("rendering changed the unpacked %T", m)
		}
	}
}

// resourceMessages is every resource of r, in output order.
func resourceMessages(r *translate.Resources) []proto.Message {
	var all []proto.Message
	for _, s := range typeSections(r) {
		all = append(all, s.items...)
	}
	return all
}

// unpackedOf is what r.Unpacked holds for the Anys of r's listeners.
func unpackedOf(r *translate.Resources) map[*anypb.Any]proto.Message {
	out := map[*anypb.Any]proto.Message{}
	var visit func(m protoreflect.Message)
	visit = func(m protoreflect.Message) {
		if a, ok := m.Interface().(*anypb.Any); ok {
			if u := r.Unpacked.Get(a); u != nil {
				out[a] = u
			}
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				for i := 0; i < v.List().Len(); i++ {
					visit(v.List().Get(i).Message())
				}
			case fd.IsMap() && fd.MapValue().Message() != nil:
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					visit(mv.Message())
					return true
				})
			case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
				visit(v.Message())
			}
			return true
		})
	}
	for _, l := range r.Listeners {
		visit(l.ProtoReflect())
	}
	return out
}
