package follow

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/contourc/contourc/loader/internal/manifest"
	"github.com/contourc/contourc/loader/internal/object"
	"github.com/contourc/contourc/loader/kustomize"
	"github.com/contourc/contourc/loader/substitute"
	"github.com/contourc/contourc/loader/walk"
)

// Load is what the engine needs of the load that follows entries.
// Decoding what an entry built is loading again (with the load's options,
// the entry's namespace and variables), so the loader hands itself in
// rather than being imported: loader imports follow, never the reverse.
type Load interface {
	// IsGitOps reports whether o is a GitOps object, among which the
	// Followers look for entry points.
	IsGitOps(o object.Object) bool
	// Decode decodes what an entry built, each object and error with
	// origin as its entry, keeps it to merge with the walk's, and returns
	// its objects.
	Decode(b *Built, origin *manifest.EntryOrigin) []object.Object
}

// maxEntries bounds the entry points one load follows: a repository's
// Kustomizations and Applications are counted in tens or hundreds.
const maxEntries = 10000

// Result is what following gave the load.
type Result struct {
	// Reports say what became of each entry point, in the order found.
	Reports []EntryReport
	// Errs are the failures of entries' builds, as the tool reports them.
	Errs   []error
	covers []string        // directories left to entries, absolute
	read   map[string]bool // files entries' builds read, absolute
}

// Run follows the entry points among walked, the objects the walk
// decoded, in their order.
//
// An entry point the walk found in a directory that another entry
// covers (a child Kustomization's ks.yaml under the parent's path) waits
// for that entry's build: what the walk read there is left to the
// entries (Covered), and the entry point the parent's build brings is
// the one the cluster gets, with the parent's patches, namespace and
// variables. When the build brings it as the walk read it, the walk's is
// followed, at its place among the reports; when it brings it changed,
// the built one is followed and the walk's is dropped; when it does not
// bring it at all, the walk's is followed after all, as before.
func (f *Follow) Run(walked []object.Object, sub *substitute.Substitution, load Load) *Result {
	out := &Result{read: map[string]bool{}}
	round := appendGitOps(nil, walked, load)
	if len(round) == 0 {
		return out // most inputs: nothing to follow, nothing more to pay
	}
	in := &FollowInput{Substitute: sub}
	in.Objects = append(in.Objects, walked...)
	in.Objects = append(in.Objects, f.Cluster...)
	r := &run{out: out, load: load, reported: map[key][]object.Object{}, built: map[string]int{}, waiting: map[key]*waiting{}}
	for (len(round) > 0 || len(r.waiting) > 0) && r.n < maxEntries {
		var entries []Entry
		for _, fl := range f.Followers {
			entries = append(entries, fl.Entries(in, round)...)
		}
		released := len(round) == 0
		if released {
			entries = r.release() // no build brought them: the walk's after all
		}
		var next []object.Object
		for i, e := range entries {
			if !released && e.Object.Source.Entry == nil && coveredByAnother(e, entries, i, out.covers) {
				r.wait(e)
				continue
			}
			objs, ok := r.take(e)
			if !ok {
				continue
			}
			in.Objects = append(in.Objects, objs...)
			next = appendGitOps(next, objs, load)
		}
		round = next
	}
	// Places kept for entry points the bound left waiting.
	out.Reports = slices.DeleteFunc(out.Reports, func(rep EntryReport) bool { return rep.Kind == "" })
	return out
}

// run is the state of one Run.
type run struct {
	out      *Result
	load     Load
	reported map[key][]object.Object // the entry points met, by key
	built    map[string]int          // Key -> objects built
	waiting  map[key]*waiting        // the walk's entry points waiting for a build
	order    []key                   // waiting's keys, in the order met
	n        int                     // entry points followed or not, for maxEntries
}

// waiting is an entry point of the walk that waits for the build of the
// entry covering its file, with the place kept for its report.
type waiting struct {
	entry Entry
	slot  int
}

func (r *run) wait(e Entry) {
	k := keyOf(e.Object)
	if _, ok := r.waiting[k]; ok || slices.ContainsFunc(r.reported[k], func(o object.Object) bool { return reflect.DeepEqual(o.Obj, e.Object.Obj) }) {
		return
	}
	r.waiting[k] = &waiting{entry: e, slot: len(r.out.Reports)}
	r.order = append(r.order, k)
	r.out.Reports = append(r.out.Reports, EntryReport{}) // its place, filled when it is followed
}

// release hands back the entries still waiting, in the order met.
func (r *run) release() []Entry {
	var out []Entry
	for _, k := range r.order {
		if w, ok := r.waiting[k]; ok {
			out = append(out, w.entry)
		}
	}
	return out
}

// take follows e, or the walk's entry point e stands for, unless it was
// met already, and returns what it built.
func (r *run) take(e Entry) ([]object.Object, bool) {
	k := keyOf(e.Object)
	slot := -1
	if w, ok := r.waiting[k]; ok {
		delete(r.waiting, k)
		slot = w.slot
		if reflect.DeepEqual(w.entry.Object.Obj, e.Object.Obj) {
			e = w.entry // the walk's, with its own source
		}
	}
	if slices.ContainsFunc(r.reported[k], func(o object.Object) bool { return reflect.DeepEqual(o.Obj, e.Object.Obj) }) {
		r.drop(slot)
		return nil, false // reached again, as the bootstrap Kustomization reaches itself
	}
	r.reported[k] = append(r.reported[k], e.Object)
	r.n++
	objs, rep, ok := r.out.follow(e, r.built, r.load)
	if slot >= 0 {
		r.out.Reports[slot] = rep
	} else {
		r.out.Reports = append(r.out.Reports, rep)
	}
	return objs, ok
}

// drop removes the report place kept at slot, if any.
func (r *run) drop(slot int) {
	if slot < 0 {
		return
	}
	r.out.Reports = slices.Delete(r.out.Reports, slot, slot+1)
	for _, w := range r.waiting {
		if w.slot > slot {
			w.slot--
		}
	}
}

// coveredByAnother reports whether the file of entries[i] lies in a
// directory that another entry of entries, or one followed before,
// covers.
func coveredByAnother(e Entry, entries []Entry, i int, followed []string) bool {
	if e.Object.Source.File == "" {
		return false
	}
	file := walk.RealPath(e.Object.Source.File)
	if under(file, followed) {
		return true
	}
	for j, other := range entries {
		if j != i && other.NotFollowed == "" && under(file, other.Covers) {
			return true
		}
	}
	return false
}

func under(file string, dirs []string) bool {
	for _, dir := range dirs {
		if file == dir || strings.HasPrefix(file, dir+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// follow builds one entry, unless it is not followed or its Key was
// built already, and has the load decode it.
func (out *Result) follow(e Entry, built map[string]int, load Load) ([]object.Object, EntryReport, bool) {
	rep := EntryReport{Kind: e.Object.Kind, Namespace: e.Object.Obj.GetNamespace(), Name: e.Object.Obj.GetName(), Source: e.Object.Source, Path: e.Path}
	if e.NotFollowed != "" {
		rep.Reason = e.NotFollowed
		return nil, rep, false
	}
	rep.Followed = true
	if n, ok := built[e.Key]; ok {
		rep.Objects = n // the same objects, reached once
		return nil, rep, false
	}
	built[e.Key] = 0
	out.covers = append(out.covers, e.Covers...)
	origin := &manifest.EntryOrigin{Source: e.Object.Source, Kind: rep.Kind, Namespace: rep.Namespace, Name: rep.Name}
	b, err := e.Build()
	if err != nil {
		out.Errs = append(out.Errs, &manifest.Error{Source: e.Object.Source, Kind: rep.Kind, Namespace: rep.Namespace, Name: rep.Name, Msg: kustomize.Message(err.Error())})
		return nil, rep, false
	}
	out.noteRead(b)
	objs := load.Decode(b, origin)
	rep.Objects = len(objs)
	built[e.Key] = rep.Objects
	return objs, rep, true
}

// noteRead remembers the files the kustomize builds of b read, which the
// walk leaves to the entry.
func (out *Result) noteRead(b *Built) {
	if r := b.Kustomize; r != nil && r.Build != nil {
		for path := range r.Build.Read {
			out.read[path] = true
		}
	}
	for _, more := range b.Also {
		out.noteRead(more)
	}
}

// Covered reports whether the walk leaves file to an entry: it lies
// under a covered directory, or a build read it.
func (out *Result) Covered(file string) bool {
	if len(out.covers) == 0 && len(out.read) == 0 {
		return false
	}
	abs := walk.RealPath(file)
	if out.read[abs] {
		return true
	}
	for _, dir := range out.covers {
		if abs == dir || strings.HasPrefix(abs, dir+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// appendGitOps appends the GitOps objects of objs to out.
func appendGitOps(out, objs []object.Object, load Load) []object.Object {
	for _, o := range objs {
		if load.IsGitOps(o) {
			out = append(out, o)
		}
	}
	return out
}

// key identifies an object as the API server does.
type key struct {
	kind, namespace, name string
}

func keyOf(o object.Object) key {
	return key{o.Kind, o.Obj.GetNamespace(), o.Obj.GetName()}
}

// DropIdentical removes the objects entries built that repeat an earlier
// one exactly: one object reached twice, by the walk and an entry or by
// two entries. Objects that share a key but differ are kept, for the
// load's duplicate check, and so are two identical objects of the walk's
// own, which are two files defining one object.
func DropIdentical(objs []object.Object) []object.Object {
	first := make(map[key]int, len(objs))
	out := objs[:0:0]
	for _, o := range objs {
		k := keyOf(o)
		if i, ok := first[k]; ok && (o.Source.Entry != nil || out[i].Source.Entry != nil) && reflect.DeepEqual(out[i].Obj, o.Obj) && reflect.DeepEqual(out[i].Extensions, o.Extensions) {
			continue
		}
		if _, ok := first[k]; !ok {
			first[k] = len(out)
		}
		out = append(out, o)
	}
	return out
}
