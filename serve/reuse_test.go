package serve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/contourc/contourc/translate"
)

// TestReloadsMatchFreshBuilds runs reloads through one Server, which
// reuses the messages, hashes and validations of the reload before, while
// the served directory changes from one golden input to another and back,
// and by small edits. After every reload, what it would serve (the
// version, each resource's hash, the status) must be what a fresh
// translation of the same files gives.
func TestReloadsMatchFreshBuilds(t *testing.T) {
	inputs, _ := filepath.Glob("../testdata/golden/*/input")
	if len(inputs) < 3 {
		t.Fatal("too few golden inputs")
	}
	dir := t.TempDir()
	s, err := New(Config{Paths: []string{dir}, XDSAddress: "127.0.0.1:0", HTTPAddress: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.closeAll(false)

	reload := func(what string) {
		t.Helper()
		b, err := s.build()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if _, err := s.publish(context.Background(), b); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		fresh := freshBuild(t, dir)
		for _, typ := range servedTypes {
			if got, want := b.snap.set(typ).hashes, fresh.snap.set(typ).hashes; !reflect.DeepEqual(got, want) {
				for name := range want {
					if got[name] != want[name] {
						t.Errorf("%s: %s %s differs from a fresh build's", what, typeLabel(typ), name)
					}
				}
				t.Fatalf("%s: %s hashes differ from a fresh build's", what, typeLabel(typ))
			}
		}
		if b.snap.version != fresh.snap.version {
			t.Fatalf("%s: version %s, a fresh build's %s", what, b.snap.version, fresh.snap.version)
		}
		if got, want := statusJSON(t, b.status), statusJSON(t, fresh.status); got != want {
			t.Fatalf("%s: status differs from a fresh build's", what)
		}
	}
	// Each golden input in turn, then all again in reverse: every reload
	// starts from another configuration's memo.
	order := append(append([]string{}, inputs...), inputs[0])
	for i := len(inputs) - 1; i >= 0; i-- {
		order = append(order, inputs[i])
	}
	for _, in := range order {
		replaceDir(t, dir, in)
		reload(filepath.Base(filepath.Dir(in)))
		reload(filepath.Base(filepath.Dir(in)) + " again")
	}
	// Small edits on the last one: a host added, then taken away.
	writeFile(t, filepath.Join(dir, "added.yaml"), ingress("added", "added.example.com"))
	reload("an Ingress added")
	if err := os.Remove(filepath.Join(dir, "added.yaml")); err != nil {
		t.Fatal(err)
	}
	reload("the Ingress removed")
}

// freshBuild is what a Server that never reloaded before builds for dir.
func freshBuild(t *testing.T, dir string) *build {
	t.Helper()
	s, err := New(Config{Paths: []string{dir}, XDSAddress: "127.0.0.1:0", HTTPAddress: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.closeAll(false)
	b, err := s.build()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// replaceDir makes dir hold the YAML files of from, and nothing else.
func replaceDir(t *testing.T, dir, from string) {
	t.Helper()
	old, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range old {
		if err := os.RemoveAll(f); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(from, "*.yaml"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, filepath.Base(f)), string(b))
	}
}

func statusJSON(t *testing.T, st []translate.ObjectStatus) string {
	t.Helper()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
