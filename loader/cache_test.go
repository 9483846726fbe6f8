package loader

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const cacheTestServices = `apiVersion: v1
kind: Service
metadata: {name: a, namespace: default}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: b, namespace: default}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: c, namespace: default}
spec: {ports: [{port: 80}]}
`

const cacheTestJSON = `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "j", "namespace": "default"}, "spec": {"ports": [{"port": 81}]}}`

func writeCacheTestFiles(t *testing.T, dir, services string) {
	t.Helper()
	for name, text := range map[string]string{"services.yaml": services, "j.json": cacheTestJSON} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func loadWithCache(t *testing.T, c *Cache, dir string) *Result {
	t.Helper()
	res, err := Load([]string{dir}, Options{Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func servicePort(t *testing.T, res *Result, name string) int32 {
	t.Helper()
	return find(t, res, "Service", "default", name).Obj.(*corev1.Service).Spec.Ports[0].Port
}

// TestCacheDecodesOnlyWhatChanged: a second load of the same files takes
// every document from the cache and gives the same objects; an edit in
// place misses only its own document; a line added shifts, and so misses,
// the documents after it in that file only.
func TestCacheDecodesOnlyWhatChanged(t *testing.T) {
	dir := t.TempDir()
	writeCacheTestFiles(t, dir, cacheTestServices)
	c := NewCache()

	first := loadWithCache(t, c, dir)
	if c.Hits() != 0 {
		t.Errorf("first load: %d hits", c.Hits())
	}
	if !reflect.DeepEqual(first.Objects, mustLoad(t, dir).Objects) {
		t.Fatal("a load through the cache differs from one without")
	}
	again := loadWithCache(t, c, dir)
	if c.Hits() != 4 || !reflect.DeepEqual(again.Objects, first.Objects) {
		t.Errorf("unchanged files: %d hits (want 4), same objects %v", c.Hits(), reflect.DeepEqual(again.Objects, first.Objects))
	}

	writeCacheTestFiles(t, dir, strings.Replace(cacheTestServices, "name: b, namespace: default}\nspec: {ports: [{port: 80}]}", "name: b, namespace: default}\nspec: {ports: [{port: 90}]}", 1))
	edited := loadWithCache(t, c, dir)
	if c.Hits() != 3 || servicePort(t, edited, "b") != 90 {
		t.Errorf("one document edited: %d hits (want 3), port %d", c.Hits(), servicePort(t, edited, "b"))
	}

	writeCacheTestFiles(t, dir, "# a comment that shifts every line\n"+cacheTestServices)
	shifted := loadWithCache(t, c, dir)
	if c.Hits() != 1 { // the JSON file only
		t.Errorf("lines shifted: %d hits, want 1", c.Hits())
	}
	if got := find(t, shifted, "Service", "default", "a").Source.Line; got != 2 {
		t.Errorf("service a at line %d, want 2", got)
	}
}

// TestCacheKeepsOnlyTheLastLoad: documents no longer in the inputs are
// dropped, so the cache never outgrows one set of inputs.
func TestCacheKeepsOnlyTheLastLoad(t *testing.T) {
	dir := t.TempDir()
	writeCacheTestFiles(t, dir, cacheTestServices)
	c := NewCache()
	loadWithCache(t, c, dir)
	if err := os.Remove(filepath.Join(dir, "services.yaml")); err != nil {
		t.Fatal(err)
	}
	loadWithCache(t, c, dir)
	if n := c.documents(); n != 1 {
		t.Errorf("%d cached documents after the file went, want 1", n)
	}
}

// TestCacheReportsErrorsAgain: a cached bad document fails every load, not
// just the first.
func TestCacheReportsErrorsAgain(t *testing.T) {
	dir := t.TempDir()
	writeCacheTestFiles(t, dir, cacheTestServices+"---\napiVersion: v1\nkind: Service\nmetadata: {name: d}\nspec: {portz: []}\n")
	c := NewCache()
	for i := range 2 {
		_, err := Load([]string{dir}, Options{Cache: c})
		if err == nil || !strings.Contains(err.Error(), "portz") {
			t.Errorf("load %d: err = %v, want the unknown field", i, err)
		}
	}
	if c.Hits() != 5 { // four documents and the JSON file
		t.Errorf("%d hits on the second load, want 5", c.Hits())
	}
}

// TestCacheTakesUnchangedFilesWhole: a file whose text did not change is
// taken as it was, without going through its documents again; a changed
// one is not.
func TestCacheTakesUnchangedFilesWhole(t *testing.T) {
	dir := t.TempDir()
	writeCacheTestFiles(t, dir, cacheTestServices)
	c := NewCache()
	loadWithCache(t, c, dir)
	entries := maps.Clone(c.files)
	writeCacheTestFiles(t, dir, strings.Replace(cacheTestServices, "port: 80", "port: 81", 1))
	loadWithCache(t, c, dir)
	for name, f := range c.files {
		unchanged := filepath.Base(name) == "j.json"
		if (entries[name] == f) != unchanged {
			t.Errorf("%s: taken whole %v, want %v", filepath.Base(name), entries[name] == f, unchanged)
		}
	}
	if len(c.files) != 2 {
		t.Errorf("%d files cached, want 2", len(c.files))
	}
}

// An unchanged file is recognised by hashing it through a small buffer,
// not by reading it into memory; one over the size limit, or gone, is left
// to the full read, which reports it.
func TestCacheHashesUnchangedFilesWithoutHoldingThem(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "services.yaml")
	if err := os.WriteFile(path, []byte(strings.Repeat(cacheTestServices+"---\n", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	text := strings.Repeat("# padding to make the file large\n", 1<<15) + cacheTestJSON + "\n"
	if err := os.WriteFile(big, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	c := NewCache()
	loadWithCache(t, c, dir)
	c.begin()
	defer c.end()

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, ok := c.unchanged(big, stampOf(big), int64(len(text)))
	runtime.ReadMemStats(&after)
	if !ok {
		t.Fatal("an unchanged file was not recognised")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(len(text))/4 {
		t.Errorf("recognising a %d-byte file allocated %d bytes", len(text), grew)
	}
	if _, ok := c.unchanged(big, stampOf(big), int64(len(text))-1); ok {
		t.Error("a file over the limit was taken from the cache")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.unchanged(path, stampOf(path), 1<<20); ok {
		t.Error("a removed file was taken from the cache")
	}
}

// Objects come out in the same order whether the files' objects were
// sorted afresh or merged from the sorted runs the cache keeps per file.
func TestCacheKeepsTheOrder(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	for f := range 4 {
		var docs []string
		for i := range 30 {
			kind := []string{"Service", "Secret", "ConfigMap"}[rng.IntN(3)]
			doc := fmt.Sprintf("apiVersion: v1\nkind: %s\nmetadata: {name: o-%d-%d, namespace: ns-%d}\n", kind, f, i, rng.IntN(5))
			if kind == "Service" {
				doc += "spec: {ports: [{port: 80}]}\n"
			}
			docs = append(docs, doc)
		}
		rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.yaml", f)), []byte(strings.Join(docs, "---\n")), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	keys := func(res *Result) []objectKey {
		var out []objectKey
		for _, o := range res.Objects {
			out = append(out, keyOf(o))
		}
		return out
	}
	want := keys(loadWithCache(t, nil, dir))
	c := NewCache()
	for i := range 2 { // sorted afresh, then merged
		if got := keys(loadWithCache(t, c, dir)); !slices.Equal(got, want) {
			t.Fatalf("load %d with a cache: the order differs", i+1)
		}
	}
}

// mergeSorted gives what sorting the runs' objects together gives: runs
// of one kind, interleaved runs, empty runs and runs of one object.
func TestMergeSorted(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 4))
		var all []Object
		var runs [][]keyedObject
		for r := range 1 + rng.IntN(9) {
			kinds := []string{"Service", "Secret", "ConfigMap"}
			if rng.IntN(2) == 0 {
				kinds = kinds[r%3 : r%3+1] // a file of one kind
			}
			var run []Object
			for i := range rng.IntN(40) {
				run = append(run, Object{Kind: kinds[rng.IntN(len(kinds))],
					Obj: &metav1.ObjectMeta{Namespace: fmt.Sprintf("ns-%d", rng.IntN(4)), Name: fmt.Sprintf("o-%d-%d", r, i)}})
			}
			all = append(all, run...)
			runs = append(runs, sortedKeyed(run))
		}
		sortObjects(all)
		got, _ := mergeSorted(runs)
		if len(got) != len(all) {
			t.Fatalf("seed %d: %d objects merged, want %d", seed, len(got), len(all))
		}
		for i := range all {
			if keyOf(got[i]) != keyOf(all[i]) {
				t.Fatalf("seed %d, object %d: %v, want %v", seed, i, keyOf(got[i]), keyOf(all[i]))
			}
		}
	}
}

// A file whose stamp is unchanged, and was taken long enough after the
// file's last change, is not read again; a file rewritten with bytes of
// the same length and its modification time set back is still seen to
// change (its change time moved); a stamp taken too soon after a change
// vouches for nothing, and the file is hashed.
func TestCacheTrustsSettledStamps(t *testing.T) {
	if !stampOf(".").valid {
		t.Skip("no file stamps on this system")
	}
	defer func(m time.Duration) { stampMargin = m }(stampMargin)
	dir := t.TempDir()
	path := filepath.Join(dir, "services.yaml")
	if err := os.WriteFile(path, []byte(cacheTestServices), 0o600); err != nil {
		t.Fatal(err)
	}
	c := NewCache()

	stampMargin = time.Hour // every change is recent: nothing vouched for
	loadWithCache(t, c, dir)
	loadWithCache(t, c, dir)
	if n := c.stampsTrusted.Load(); n != 0 {
		t.Fatalf("%d files trusted by a stamp taken within the margin", n)
	}

	stampMargin = 0          // every change is old enough
	loadWithCache(t, c, dir) // takes a new stamp, after the change
	before := c.stampsTrusted.Load()
	again := loadWithCache(t, c, dir)
	if c.stampsTrusted.Load() != before+1 || servicePort(t, again, "b") != 80 {
		t.Fatalf("an unchanged file with a settled stamp: trusted %d times (want %d), port %d",
			c.stampsTrusted.Load(), before+1, servicePort(t, again, "b"))
	}

	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(cacheTestServices, "name: b, namespace: default}\nspec: {ports: [{port: 80}]}", "name: b, namespace: default}\nspec: {ports: [{port: 90}]}", 1)
	if len(edited) != len(cacheTestServices) || edited == cacheTestServices {
		t.Fatal("the edit must keep the length")
	}
	time.Sleep(10 * time.Millisecond) // past the change time's tick
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := servicePort(t, loadWithCache(t, c, dir), "b"); got != 90 {
		t.Errorf("a same-length edit with its modification time set back: port %d, want 90", got)
	}
}

// Duplicates across files are found whether the objects were sorted afresh
// or merged from the runs the cache keeps.
func TestCacheFindsDuplicates(t *testing.T) {
	c := NewCache()
	for i := range 2 {
		_, err := Load([]string{"testdata/dups"}, Options{Cache: c})
		if err == nil || !strings.Contains(err.Error(), "defined more than once") {
			t.Errorf("load %d: %v, want the duplicate reported", i+1, err)
		}
	}
	if c.Hits() == 0 {
		t.Error("the second load took nothing from the cache: the merge path was not tested")
	}
}

// With Rehash a Load reads every file to tell whether it changed, even one
// whose stamp vouches for the bytes read last time: a file system whose
// stat shows stale attributes (here, a stamp set by hand) is caught.
func TestCacheRehashDistrustsStamps(t *testing.T) {
	if !stampOf(".").valid {
		t.Skip("no file stamps on this system")
	}
	defer func(m time.Duration) { stampMargin = m }(stampMargin)
	stampMargin = 0
	dir := t.TempDir()
	path := filepath.Join(dir, "services.yaml")
	if err := os.WriteFile(path, []byte(cacheTestServices), 0o600); err != nil {
		t.Fatal(err)
	}
	c := NewCache()
	loadWithCache(t, c, dir)
	edited := strings.Replace(cacheTestServices, "{port: 80}]}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: c", "{port: 90}]}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: c", 1)
	if len(edited) != len(cacheTestServices) || edited == cacheTestServices {
		t.Fatal("the edit must keep the length")
	}
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	// Stale attributes: the cache's stamp says what stat says now.
	c.files[path].stamp = stampOf(path)

	if got := servicePort(t, loadWithCache(t, c, dir), "b"); got != 80 {
		t.Fatalf("the stale stamp was not trusted (port %d): the test shows nothing", got)
	}
	res, err := Load([]string{dir}, Options{Cache: c, Rehash: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := servicePort(t, res, "b"); got != 90 {
		t.Errorf("with Rehash: port %d, want 90", got)
	}
}

// Runs that do not overlap are laid end to end in key order, whatever
// order they come in; runs that overlap, or touch at one key, are merged,
// and only those.
func TestMergeSortedDisjointRuns(t *testing.T) {
	run := func(kind string, names ...string) []keyedObject {
		var objs []Object
		for _, n := range names {
			objs = append(objs, Object{Kind: kind, Obj: &metav1.ObjectMeta{Namespace: "ns", Name: n}})
		}
		return sortedKeyed(objs)
	}
	services, secrets, maps := run("Service", "a", "b"), run("Secret", "a", "c"), run("ConfigMap", "x")
	groups := func(runs ...[]keyedObject) int { return len(overlapping(runs)) }
	if n := groups(services, secrets, maps); n != 3 {
		t.Errorf("runs of one kind each: %d groups, want 3", n)
	}
	if n := groups(run("Service", "a", "c"), run("Service", "b")); n != 1 {
		t.Errorf("interleaved runs: %d groups, want 1", n)
	}
	if n := groups(run("Service", "a", "b"), run("Service", "b", "c")); n != 1 {
		t.Errorf("runs sharing a key: %d groups, want 1", n)
	}
	// One run inside another, next to runs apart: only those two merge.
	if n := groups(maps, run("Service", "a", "m", "z"), secrets, run("Service", "k"), run("Service", "n", "y")); n != 3 {
		t.Errorf("runs within a run, and apart: %d groups, want 3", n)
	}
	inside, _ := mergeSorted([][]keyedObject{maps, run("Service", "a", "m", "z"), secrets, run("Service", "k"), run("Service", "n", "y")})
	var insideKeys []string
	for _, o := range inside {
		insideKeys = append(insideKeys, o.Kind+"/"+o.Obj.GetName())
	}
	if want := []string{"ConfigMap/x", "Secret/a", "Secret/c", "Service/a", "Service/k", "Service/m", "Service/n", "Service/y", "Service/z"}; !slices.Equal(insideKeys, want) {
		t.Errorf("merged %v, want %v", insideKeys, want)
	}
	got, dup := mergeSorted([][]keyedObject{services, secrets, maps, nil})
	var keys []string
	for _, o := range got {
		keys = append(keys, o.Kind+"/"+o.Obj.GetName())
	}
	if want := []string{"ConfigMap/x", "Secret/a", "Secret/c", "Service/a", "Service/b"}; !slices.Equal(keys, want) || dup {
		t.Errorf("merged %v (duplicates %v), want %v and none", keys, dup, want)
	}
	if _, dup := mergeSorted([][]keyedObject{run("Service", "a", "a"), maps}); !dup {
		t.Error("a duplicate within a disjoint run was missed")
	}
	if _, dup := mergeSorted([][]keyedObject{run("Service", "a"), run("Service", "a")}); !dup {
		t.Error("a duplicate across runs was missed")
	}
}

// Objects says what each file of the last load gave, by the name the
// loader gives it.
func TestCacheObjects(t *testing.T) {
	dir := t.TempDir()
	writeCacheTestFiles(t, dir, cacheTestServices)
	c := NewCache()
	loadWithCache(t, c, dir)
	if n, ok := c.Objects(filepath.Join(dir, "j.json")); !ok || n != 1 {
		t.Errorf("j.json: %d objects, read %v; want 1, true", n, ok)
	}
	if _, ok := c.Objects(filepath.Join(dir, "absent.yaml")); ok {
		t.Error("a file never read is known")
	}
	if err := os.WriteFile(filepath.Join(dir, "j.json"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	loadWithCache(t, c, dir)
	if n, ok := c.Objects(filepath.Join(dir, "j.json")); !ok || n != 0 {
		t.Errorf("j.json emptied: %d objects, read %v; want 0, true", n, ok)
	}
}
