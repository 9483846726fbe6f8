package loader

import (
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestDuplicateObjects checks that the same kind, namespace and name
// twice is an error naming both places, whatever the namespace spelling.
func TestDuplicateObjects(t *testing.T) {
	errs := loadErrors(t, Options{}, "testdata/dups")
	if len(errs) != 1 {
		t.Fatalf("got %d errors, want 1: %v", len(errs), errs)
	}
	e := errs[0]
	if e.Source.File != "testdata/dups/two.yaml" || e.Source.Line != 2 {
		t.Errorf("error at %v, want testdata/dups/two.yaml:2", e.Source)
	}
	if !strings.Contains(e.Error(), "Service default/web: defined more than once: also at testdata/dups/one.yaml:1") {
		t.Errorf("error = %q", e.Error())
	}
}

// TestDeterministicOrder checks that objects come out sorted by kind,
// namespace and name (as Compare orders them), the same whatever order
// the inputs are given in.
func TestDeterministicOrder(t *testing.T) {
	paths := []string{
		"testdata/ok/list.yaml", "testdata/ok/objects.json", "testdata/ok/list.json",
		"testdata/ok/endpoints.yaml", "testdata/ok/httpproxy-defaults.yaml",
		"testdata/ok/gateway-defaults.yaml", "testdata/ok/core.yaml", "testdata/tree",
	}
	loaded := mustLoad(t, paths...)
	want := summarize(loaded)
	if !sort.SliceIsSorted(want, func(i, j int) bool { return want[i] < want[j] }) {
		t.Errorf("objects not sorted by kind, namespace, name: %v", want)
	}
	// Compare states that order, each key once.
	for i := 1; i < len(loaded.Objects); i++ {
		if Compare(loaded.Objects[i-1], loaded.Objects[i]) >= 0 {
			t.Errorf("Compare does not order objects %d and %d as Load does", i-1, i)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 10; i++ {
		rng.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
		if got := summarize(mustLoad(t, paths...)); !reflect.DeepEqual(got, want) {
			t.Fatalf("order %v gave\n%v\nwant\n%v", paths, got, want)
		}
	}
}

// summarize lists kind, namespace, name and source of each object.
func summarize(res *Result) []string {
	out := make([]string, len(res.Objects))
	for i, o := range res.Objects {
		out[i] = o.Kind + "\x00" + o.Obj.GetNamespace() + "\x00" + o.Obj.GetName() + "\x00" + o.Source.String()
	}
	return out
}

// TestDirectoryWalk checks that a directory is walked recursively for
// .yaml, .yml and .json files, skipping hidden directories and other files,
// and that naming a file twice reads it once.
func TestDirectoryWalk(t *testing.T) {
	res := mustLoad(t, "testdata/tree", "testdata/tree/a.yaml")
	var got []string
	for _, o := range res.Objects {
		got = append(got, o.Obj.GetName()+"@"+o.Source.File)
	}
	want := []string{"a@testdata/tree/a.yaml", "b@testdata/tree/sub/b.yml", "c@testdata/tree/sub/c.json"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
