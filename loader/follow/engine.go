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
func (f *Follow) Run(walked []object.Object, sub *substitute.Substitution, load Load) *Result {
	out := &Result{read: map[string]bool{}}
	round := appendGitOps(nil, walked, load)
	if len(round) == 0 {
		return out // most inputs: nothing to follow, nothing more to pay
	}
	in := &FollowInput{Substitute: sub}
	in.Objects = append(in.Objects, walked...)
	in.Objects = append(in.Objects, f.Cluster...)
	reported := map[key][]object.Object{}
	n := 0
	built := map[string]int{} // Key -> objects built
	for len(round) > 0 && n < maxEntries {
		var next []object.Object
		for _, fl := range f.Followers {
			for _, e := range fl.Entries(in, round) {
				k := keyOf(e.Object)
				if slices.ContainsFunc(reported[k], func(o object.Object) bool { return reflect.DeepEqual(o.Obj, e.Object.Obj) }) {
					continue // reached again, as the bootstrap Kustomization reaches itself
				}
				reported[k] = append(reported[k], e.Object)
				n++
				objs, rep, ok := out.follow(e, built, load)
				out.Reports = append(out.Reports, rep)
				if !ok {
					continue
				}
				in.Objects = append(in.Objects, objs...)
				next = appendGitOps(next, objs, load)
			}
		}
		round = next
	}
	return out
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
