package loader

import (
	"errors"
	"testing"
)

// mustLoad loads paths and fails the test on any error.
func mustLoad(t testing.TB, paths ...string) *Result {
	t.Helper()
	res, err := Load(paths, Options{})
	if err != nil {
		t.Fatalf("Load(%v): %v", paths, err)
	}
	return res
}

// find returns the object of kind namespace/name, failing the test when it
// is not there.
func find(t testing.TB, res *Result, kind, namespace, name string) Object {
	t.Helper()
	for _, o := range res.Objects {
		if o.Kind == kind && o.Obj.GetNamespace() == namespace && o.Obj.GetName() == name {
			return o
		}
	}
	t.Fatalf("no %s %s/%s among %d objects", kind, namespace, name, len(res.Objects))
	return Object{}
}

// loadErrors loads paths expecting failure and returns the *Errors.
func loadErrors(t testing.TB, opts Options, paths ...string) []*Error {
	t.Helper()
	res, err := Load(paths, opts)
	if err == nil {
		t.Fatalf("Load(%v) succeeded with %d objects, want an error", paths, len(res.Objects))
	}
	if res != nil {
		t.Errorf("Load(%v) returned a result with its error", paths)
	}
	var out []*Error
	for _, e := range unjoin(err) {
		var le *Error
		if !errors.As(e, &le) {
			t.Fatalf("error %v is a %T, not a *loader.Error", e, e)
		}
		out = append(out, le)
	}
	return out
}
