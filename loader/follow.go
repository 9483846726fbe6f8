package loader

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/contourc/contourc/loader/internal/manifest"
	"github.com/contourc/contourc/loader/kustomize"
	"github.com/contourc/contourc/loader/substitute"
	"github.com/contourc/contourc/loader/walk"
)

// follow.go: following GitOps entry points. In a Flux or Argo CD
// repository the routing objects are not all read from where they lie:
// Kustomizations (kustomize.toolkit.fluxcd.io) and Applications
// (argoproj.io) say which path the cluster's tool builds, into which
// namespace, with which variables. A Follower knows one tool's entry
// points; the engine here finds them among the loaded objects, builds each
// once per set of options (Entry.Key), decodes what it built like any
// build's objects, and looks for more entry points in that, round after
// round, until none is new. Each object built keeps the entry that built
// it in its Source (Source.Entry), so that messages read
// "clusters/prod/apps.yaml:14 Kustomization flux-system/apps →
// apps/web/proxy.yaml:3 HTTPProxy web/web: ...".
//
// What a followed entry builds replaces what the plain walk read from the
// same place: the files under an entry's Covers (its path) and the files
// its build read are left out of the walk's own reading, their
// kustomizations are not built as plain ones, and their warnings go with
// them. An object reached twice identically (by the walk and an entry, or
// by two entries) is one object; reached twice differently, it is defined
// more than once, as it would be for two files.

// Follow tells Load to follow GitOps entry points.
type Follow struct {
	// Followers know the entry points, one tool each.
	Followers []Follower
	// Cluster are the objects of the cluster context, which entries may
	// read (the ConfigMaps and Secrets of Flux's substituteFrom and
	// valuesFrom) though they are not part of the input.
	Cluster []Object
}

// A Follower finds one GitOps tool's entry points.
type Follower interface {
	// Entries returns the entry points among objs, the GitOps objects
	// (kept as *unstructured.Unstructured, see IsGitOps) that one round
	// found, in their order; each is followed or says why not. in holds
	// the rest of the input.
	Entries(in *FollowInput, objs []Object) []Entry
}

// FollowInput is what a Follower may read besides the entry points.
type FollowInput struct {
	// Objects are the objects decoded so far (the walk's, then each
	// build's), the GitOps objects and secret sources among them, then
	// the cluster context's.
	Objects []Object
	// Substitute holds the --substitute variables, which apply on top of
	// an entry's own and win.
	Substitute *substitute.Substitution
}

// Find is the first object of in with this kind, namespace and name.
func (in *FollowInput) Find(kind, namespace, name string) (Object, bool) {
	for _, o := range in.Objects {
		if o.Kind == kind && o.Obj.GetName() == name && o.Obj.GetNamespace() == namespace {
			return o, true
		}
	}
	return Object{}, false
}

// Entry is one entry point.
type Entry struct {
	// Object is the entry point itself.
	Object Object
	// NotFollowed, when not empty, says why the entry is not followed
	// ("source GitRepository x/other is not this repository"); nothing
	// else of the entry is used.
	NotFollowed string
	// Key names what is built and with which options: entries with the
	// same Key are built once.
	Key string
	// Path is what is built, as messages name it ("apps/web/").
	Path string
	// Covers are the directories, absolute, whose files the walk leaves
	// to this entry.
	Covers []string
	// Build builds the entry. An error is the entry's failure, as the
	// tool would report it.
	Build func() (*Built, error)
}

// Built is what an entry built: a kustomize build, files, or both.
type Built struct {
	// Kustomize is a kustomize build, decoded like a walk's.
	Kustomize *kustomize.Result
	// Files are manifests read as files of these names (rendered chart
	// templates, a directory's files).
	Files []BuiltFile
	// Namespace is set on namespaced objects that have none; those that
	// name another keep theirs (Argo CD's destination.namespace, helm -n).
	Namespace string
	// Substitute, when it holds variables, is Flux's post-build
	// substitution of the built objects.
	Substitute *substitute.Substitution
	// Warnings are what the entry went past (options not applied, files
	// left out), reported with the load's warnings.
	Warnings []Warning
	// Also are more builds of the same entry, decoded with it: the other
	// kustomize sources of a multi-source Argo CD Application.
	Also []*Built
}

// BuiltFile is a manifest an entry built, read as a file of that name.
type BuiltFile struct {
	Name string
	Data []byte
	// AsWalked reads it as the walk reads a file it finds: one that is
	// not manifests (application config, a Go template) is skipped with a
	// notice rather than refused, as Argo CD's directory sources skip it.
	AsWalked bool
}

// EntryReport is what became of one entry point, for -v and check.
type EntryReport struct {
	Kind, Namespace, Name string
	Source                Source
	Followed              bool
	// Path is what a followed entry built; Reason why one was not.
	Path, Reason string
	// Objects counts the objects a followed entry built.
	Objects int
}

func (e EntryReport) String() string {
	name := e.Kind + " " + manifest.Qualified(e.Namespace, e.Name)
	if !e.Followed {
		return "not followed: " + name + ": " + e.Reason
	}
	return fmt.Sprintf("followed: %s -> %s (%d object%s)", name, e.Path, e.Objects, plural(e.Objects))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// maxEntries bounds the entry points one load follows: a repository's
// Kustomizations and Applications are counted in tens or hundreds.
const maxEntries = 10000

// followed is what following gave Load.
type followed struct {
	parts   []partResult
	reports []EntryReport
	covers  []string        // directories left to entries, absolute
	read    map[string]bool // files entries' builds read, absolute
	errs    []error
	// skipped are the files entries read as walked that are not
	// manifests.
	skipped []SkippedFile
}

// run follows the entry points among the objects of parts, the walk's.
func (f *Follow) run(parts []partResult, opts Options) followed {
	out := followed{read: map[string]bool{}}
	var round []Object
	for _, p := range parts {
		round = appendGitOps(round, p.objs)
	}
	if len(round) == 0 {
		return out // most inputs: nothing to follow, nothing more to pay
	}
	in := &FollowInput{Substitute: opts.Substitute}
	for _, p := range parts {
		in.Objects = append(in.Objects, p.objs...)
	}
	in.Objects = append(in.Objects, f.Cluster...)
	reported := map[objectKey][]Object{}
	n := 0
	built := map[string]int{} // Key -> objects built
	for len(round) > 0 && n < maxEntries {
		var next []Object
		for _, fl := range f.Followers {
			for _, e := range fl.Entries(in, round) {
				k := keyOf(e.Object)
				if slices.ContainsFunc(reported[k], func(o Object) bool { return reflect.DeepEqual(o.Obj, e.Object.Obj) }) {
					continue // reached again, as the bootstrap Kustomization reaches itself
				}
				reported[k] = append(reported[k], e.Object)
				n++
				p, rep, ok := out.follow(e, built, opts)
				out.reports = append(out.reports, rep)
				if !ok {
					continue
				}
				out.parts = append(out.parts, p)
				in.Objects = append(in.Objects, p.objs...)
				next = appendGitOps(next, p.objs)
			}
		}
		round = next
	}
	return out
}

// follow builds one entry, unless it is not followed or its Key was
// built already.
func (out *followed) follow(e Entry, built map[string]int, opts Options) (partResult, EntryReport, bool) {
	rep := EntryReport{Kind: e.Object.Kind, Namespace: e.Object.Obj.GetNamespace(), Name: e.Object.Obj.GetName(), Source: e.Object.Source, Path: e.Path}
	if e.NotFollowed != "" {
		rep.Reason = e.NotFollowed
		return partResult{}, rep, false
	}
	rep.Followed = true
	if n, ok := built[e.Key]; ok {
		rep.Objects = n // the same objects, reached once
		return partResult{}, rep, false
	}
	built[e.Key] = 0
	out.covers = append(out.covers, e.Covers...)
	origin := &EntryOrigin{Source: e.Object.Source, Kind: rep.Kind, Namespace: rep.Namespace, Name: rep.Name}
	b, err := e.Build()
	if err != nil {
		out.errs = append(out.errs, &Error{Source: e.Object.Source, Kind: rep.Kind, Namespace: rep.Namespace, Name: rep.Name, Msg: kustomize.Message(err.Error())})
		return partResult{}, rep, false
	}
	p := out.decode(b, opts)
	for i := range p.objs {
		p.objs[i].Source.Via, p.objs[i].Source.Entry = "", origin
	}
	for _, err := range p.errs {
		if e, ok := err.(*Error); ok && e.Source.Entry == nil {
			e.Source.Via, e.Source.Entry = "", origin
		}
	}
	p.sorted = nil // the objects' sources changed
	rep.Objects = len(p.objs)
	built[e.Key] = rep.Objects
	return p, rep, true
}

// decode decodes what an entry built.
func (out *followed) decode(b *Built, opts Options) partResult {
	o := opts
	o.Cache, o.Namespace, o.Substitute, o.keepOwnNamespace = nil, b.Namespace, b.Substitute, true
	var parts []partResult
	if r := b.Kustomize; r != nil {
		if r.Build != nil {
			for path := range r.Build.Read {
				out.read[path] = true
			}
		}
		switch {
		case r.Err != nil && !kustomize.IsNotBuilt(r.Err):
			parts = append(parts, partResult{errs: []error{&Error{Source: Source{File: r.Dir}, Msg: "kustomize build failed: " + kustomize.Message(r.Err.Error())}}})
		case r.Err == nil:
			parts = append(parts, (&builtDecoder{opts: o}).decode(*r))
		}
		for _, w := range buildWarnings(*r, r.Dir) {
			parts = append(parts, partResult{errs: nil, warnings: []Warning{w}})
		}
	}
	for _, f := range b.Files {
		p := partResult{skipped: map[string]int{}}
		text, err := manifest.NormalizeText(f.Name, f.Data)
		if err != nil {
			p.errs = []error{err}
		} else if text, err = o.Substitute.Apply(f.Name, text); err != nil {
			p.errs = []error{err}
		} else {
			p.objs, p.errs = loadFileText(f.Name, text, o, p.skipped)
		}
		if f.AsWalked {
			if p = skipNotManifest(f.Name, text, p); p.file != nil {
				out.skipped = append(out.skipped, *p.file)
			}
		}
		parts = append(parts, p)
	}
	for _, more := range b.Also {
		parts = append(parts, out.decode(more, opts))
	}
	p := partResult{skipped: map[string]int{}, warnings: b.Warnings}
	p.objs, p.errs = mergeParts(parts, p.skipped)
	for _, q := range parts {
		p.warnings = append(p.warnings, q.warnings...)
	}
	return p
}

// covered reports whether the walk leaves file to an entry: it lies
// under a covered directory, or a build read it.
func (out *followed) covered(file string) bool {
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

// dropIdentical removes the objects entries built that repeat an earlier
// one exactly: one object reached twice, by the walk and an entry or by
// two entries. Objects that share a key but differ are kept, for
// findDuplicates, and so are two identical objects of the walk's own,
// which are two files defining one object.
func dropIdentical(objs []Object) []Object {
	first := make(map[objectKey]int, len(objs))
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
