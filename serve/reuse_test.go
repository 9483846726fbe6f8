package serve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/contourc/contourc/loader"
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
	dir, reload := reloadingServer(t)
	for _, in := range forthAndBack(inputs) {
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

// TestReloadsMatchFreshBuildsOnCorpus is TestReloadsMatchFreshBuilds over
// the shared parity corpus, when it is there.
func TestReloadsMatchFreshBuildsOnCorpus(t *testing.T) {
	inputs, _ := filepath.Glob("../../shared/conformance/*/*/input")
	if len(inputs) == 0 {
		t.Skip("../shared/conformance not present")
	}
	if testing.Short() {
		inputs = inputs[:len(inputs)/10]
	}
	dir, reload := reloadingServer(t)
	for _, in := range forthAndBack(inputs) {
		replaceDir(t, dir, in)
		reload(in)
	}
}

// forthAndBack is inputs, then inputs again in reverse.
func forthAndBack(inputs []string) []string {
	out := slices.Clone(inputs)
	for i := len(inputs) - 1; i >= 0; i-- {
		out = append(out, inputs[i])
	}
	return out
}

// reloadingServer returns a directory and a function that reloads a
// Server serving it and checks the result against a fresh Server's build.
// A reload that fails must fail for a fresh Server too.
func reloadingServer(t *testing.T) (string, func(what string)) {
	t.Helper()
	dir := t.TempDir()
	s, err := New(Config{Paths: []string{dir}, XDSAddress: "127.0.0.1:0", HTTPAddress: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.closeAll(false) })
	return dir, func(what string) {
		t.Helper()
		b, err := s.build("files changed")
		fresh, freshErr := freshBuild(t, dir)
		switch {
		case (err == nil) != (freshErr == nil):
			t.Fatalf("%s: reload error %v, a fresh build's %v", what, err, freshErr)
		case err != nil:
			return
		}
		if _, err := s.publish(context.Background(), b); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
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
}

// freshBuild is what a Server that never reloaded before builds for dir.
func freshBuild(t *testing.T, dir string) (*build, error) {
	t.Helper()
	s, err := New(Config{Paths: []string{dir}, XDSAddress: "127.0.0.1:0", HTTPAddress: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.closeAll(false)
	return s.build("files changed")
}

// replaceDir makes dir hold the manifests of from, and nothing else.
func replaceDir(t *testing.T, dir, from string) {
	t.Helper()
	old, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range old {
		if err := os.RemoveAll(f); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(from, "*"))
	for _, f := range files {
		if ext := filepath.Ext(f); ext != ".yaml" && ext != ".yml" && ext != ".json" {
			continue
		}
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

// A reload asked for by hand (SIGHUP) reads every file again; one for file
// events trusts what stat says of the files that did not change.
func TestReloadRequestedRehashes(t *testing.T) {
	for reason, want := range map[string]bool{reloadRequested: true, "files changed": false, "start": false} {
		if got := loadOptions(loader.NewCache(), reason).Rehash; got != want {
			t.Errorf("%s: Rehash %v, want %v", reason, got, want)
		}
	}
}
