package render

import (
	"testing"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

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
