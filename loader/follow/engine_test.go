package follow

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/contourc/contourc/loader/internal/manifest"
	"github.com/contourc/contourc/loader/internal/object"
	"github.com/contourc/contourc/loader/kustomize"
	"github.com/contourc/contourc/loader/walk"
)

func obj(kind, namespace, name, file string) object.Object {
	u := &unstructured.Unstructured{}
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	return object.Object{Kind: kind, Obj: u, Source: manifest.Source{File: file}}
}

// fakeLoad "decodes" a build into the objects built under its Namespace,
// and remembers the origins it was given.
type fakeLoad struct {
	built   map[string][]object.Object
	origins []string
}

func (l *fakeLoad) IsGitOps(o object.Object) bool { return o.Kind == "Thing" }

func (l *fakeLoad) Decode(b *Built, origin *manifest.EntryOrigin) []object.Object {
	l.origins = append(l.origins, origin.Kind+" "+manifest.Qualified(origin.Namespace, origin.Name))
	return l.built[b.Namespace]
}

// things follows a Thing by building what its name says, with the
// Thing's namespace as Key; a Thing in namespace "none" is not followed,
// one named "broken" fails to build.
type things struct{ builds int }

func (f *things) Entries(in *FollowInput, objs []object.Object) []Entry {
	var out []Entry
	for _, o := range objs {
		name := o.Obj.GetName()
		e := Entry{Object: o, Key: o.Obj.GetNamespace(), Path: name + "/"}
		switch {
		case o.Obj.GetNamespace() == "none":
			e.NotFollowed = "not this repository"
		case name == "broken":
			e.Build = func() (*Built, error) { return nil, errors.New("no such path") }
		default:
			e.Build = func() (*Built, error) { f.builds++; return &Built{Namespace: name}, nil }
		}
		out = append(out, e)
	}
	return out
}

func TestRunFollowsRoundAfterRoundAndBuildsEachKeyOnce(t *testing.T) {
	load := &fakeLoad{built: map[string][]object.Object{
		"apps": {obj("Thing", "ops", "web", "apps/web.yaml"), obj("Service", "web", "web", "apps/svc.yaml")},
		"web":  {obj("Service", "web", "api", "web/svc.yaml")},
	}}
	walked := []object.Object{
		obj("Thing", "ops", "apps", "clusters/apps.yaml"),
		obj("Thing", "ops", "again", "clusters/again.yaml"), // same Key as apps
		obj("Thing", "none", "other", "clusters/other.yaml"),
		obj("Thing", "bad", "broken", "clusters/broken.yaml"),
		obj("Service", "ops", "plain", "clusters/svc.yaml"),
	}
	f := &things{}
	res := (&Follow{Followers: []Follower{f}}).Run(walked, nil, load)
	var got []string
	for _, r := range res.Reports {
		got = append(got, r.String())
	}
	want := []string{
		"followed: Thing ops/apps -> apps/ (2 objects)",
		"followed: Thing ops/again -> again/ (2 objects)",
		"not followed: Thing none/other: not this repository",
		"followed: Thing bad/broken -> broken/ (0 objects)",
		"followed: Thing ops/web -> web/ (2 objects)", // the Key ops was built: reached, not built again
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reports:\n got %q\nwant %q", got, want)
	}
	if f.builds != 1 || !reflect.DeepEqual(load.origins, []string{"Thing ops/apps"}) {
		t.Errorf("built %d times, decoded for %q; want once, for Thing ops/apps", f.builds, load.origins)
	}
	if len(res.Errs) != 1 || res.Errs[0].Error() != "clusters/broken.yaml: Thing bad/broken: no such path" {
		t.Errorf("errors: %v", res.Errs)
	}
}

func TestRunFollowsAnEntryFoundInABuild(t *testing.T) {
	load := &fakeLoad{built: map[string][]object.Object{
		"apps": {obj("Thing", "web", "web", "apps/web.yaml")},
		"web":  {obj("Service", "web", "api", "web/svc.yaml")},
	}}
	res := (&Follow{Followers: []Follower{&things{}}}).Run([]object.Object{obj("Thing", "ops", "apps", "apps.yaml")}, nil, load)
	if len(res.Reports) != 2 || !reflect.DeepEqual(load.origins, []string{"Thing ops/apps", "Thing web/web"}) {
		t.Errorf("reports %v, decoded for %q; want apps, then web found in its build", res.Reports, load.origins)
	}
}

func TestRunWithoutGitOpsObjectsAsksNoFollower(t *testing.T) {
	res := (&Follow{Followers: []Follower{nil}}).Run([]object.Object{obj("Service", "a", "b", "svc.yaml")}, nil, &fakeLoad{})
	if len(res.Reports) != 0 || res.Covered("svc.yaml") {
		t.Errorf("got %+v", res)
	}
}

func TestCoveredByDirectoryAndByFilesABuildRead(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"apps/web", "apps-other", "base"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	base := walk.RealPath(filepath.Join(root, "base")) + "/svc.yaml"
	built := &Built{Also: []*Built{{Kustomize: &kustomize.Result{Build: &kustomize.Build{Read: map[string][]byte{base: nil}}}}}}
	e := Entry{Object: obj("Thing", "ops", "apps", "apps.yaml"), Key: "k", Covers: []string{walk.RealPath(filepath.Join(root, "apps"))},
		Build: func() (*Built, error) { return built, nil }}
	res := &Result{read: map[string]bool{}}
	res.follow(e, map[string]int{}, &fakeLoad{})
	for file, want := range map[string]bool{
		filepath.Join(root, "apps"):                true,
		filepath.Join(root, "apps/web/proxy.yaml"): true,
		filepath.Join(root, "apps-other/svc.yaml"): false, // a prefix of the name is not the directory
		filepath.Join(root, "base/svc.yaml"):       true,  // read by the build of Also
		filepath.Join(root, "base/other.yaml"):     false,
	} {
		if got := res.Covered(file); got != want {
			t.Errorf("Covered(%s) = %v, want %v", file, got, want)
		}
	}
}

func TestDropIdenticalKeepsTheWalksOwnRepeatsAndDifferences(t *testing.T) {
	walkSvc := obj("Service", "web", "web", "a.yaml")
	again := obj("Service", "web", "web", "b.yaml") // the walk's own: two files define it
	fromEntry := obj("Service", "web", "web", "c.yaml")
	fromEntry.Source.Entry = &manifest.EntryOrigin{Kind: "Thing"}
	differs := obj("Service", "web", "web", "d.yaml")
	differs.Source.Entry = fromEntry.Source.Entry
	differs.Obj.SetLabels(map[string]string{"a": "b"})
	var got []string
	for _, o := range DropIdentical([]object.Object{walkSvc, again, fromEntry, differs}) {
		got = append(got, o.Source.File)
	}
	if want := []string{"a.yaml", "b.yaml", "d.yaml"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// covering follows every Thing like things, with the Thing named apps
// covering the directory apps of root.
type covering struct {
	things
	root string
}

func (f *covering) Entries(in *FollowInput, objs []object.Object) []Entry {
	out := f.things.Entries(in, objs)
	for i := range out {
		out[i].Key = out[i].Object.Obj.GetName()
		if out[i].Object.Obj.GetName() == "apps" {
			out[i].Covers = []string{walk.RealPath(filepath.Join(f.root, "apps"))}
		}
	}
	return out
}

// TestRunLeavesTheWalksEntriesToTheBuildThatCoversThem: an entry point
// the walk found under another entry's path is the one that entry's build
// brings: the build's when it differs (the parent's patches), the walk's
// when it is the same, at its place, and the walk's when the build does
// not bring it.
func TestRunLeavesTheWalksEntriesToTheBuildThatCoversThem(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"apps/web", "apps/docs", "apps/lone", "clusters"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	at := func(o object.Object) object.Object { o.Source.File = filepath.Join(root, o.Source.File); return o }
	built := func(o object.Object) object.Object {
		o = at(o)
		o.Source.Entry = &manifest.EntryOrigin{Kind: "Thing", Namespace: "ops", Name: "apps"}
		return o
	}
	patched := built(obj("Thing", "ops", "web", "apps/web/ks.yaml"))
	patched.Obj.SetLabels(map[string]string{"patched": "by apps"})
	load := &fakeLoad{built: map[string][]object.Object{
		"apps": {patched, built(obj("Thing", "ops", "docs", "apps/docs/ks.yaml"))},
	}}
	walked := []object.Object{
		at(obj("Thing", "ops", "web", "apps/web/ks.yaml")),
		at(obj("Thing", "ops", "docs", "apps/docs/ks.yaml")),
		at(obj("Thing", "ops", "lone", "apps/lone/ks.yaml")),
		at(obj("Thing", "ops", "apps", "clusters/apps.yaml")),
	}
	res := (&Follow{Followers: []Follower{&covering{root: root}}}).Run(walked, nil, load)
	var got []string
	for _, r := range res.Reports {
		from := "the walk"
		if r.Source.Entry != nil {
			from = "the build of " + r.Source.Entry.Name
		}
		got = append(got, r.String()+" from "+from)
	}
	want := []string{
		"followed: Thing ops/web -> web/ (0 objects) from the build of apps", // patched: the build's
		"followed: Thing ops/docs -> docs/ (0 objects) from the walk",        // the same: the walk's
		"followed: Thing ops/lone -> lone/ (0 objects) from the walk",        // not in the build
		"followed: Thing ops/apps -> apps/ (2 objects) from the walk",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reports:\n got %q\nwant %q", got, want)
	}
	if want := []string{"Thing ops/apps", "Thing ops/web", "Thing ops/docs", "Thing ops/lone"}; !reflect.DeepEqual(load.origins, want) {
		t.Errorf("decoded for %q, want %q", load.origins, want)
	}
}
