package render

import (
	"path/filepath"
	"testing"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	"google.golang.org/protobuf/proto"
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
