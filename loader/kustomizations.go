package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/contourc/contourc/loader/internal/manifest"
	"github.com/contourc/contourc/loader/kustomize"
	"github.com/contourc/contourc/loader/substitute"
	"github.com/contourc/contourc/loader/walk"
)

// kustomizations.go: directories of a walk that hold a kustomization are
// built with kustomize (package kustomize) rather than read file by file,
// as `kubectl apply -k` would apply them. The files a build reads are not
// read again, nor are the files of a kustomization's directory that it
// does not use; the objects built are decoded like any file's, and each
// is given the source file and document it came from.

// kustomizePlan is how Load reads its files once kustomizations are
// taken out of them.
type kustomizePlan struct {
	plain    []string // files read as they are
	warnings []Warning
	notRead  []NotRead
	// One per kustomization built: its result, its kustomization file,
	// and what it decoded to (built even when it overlaps another, so
	// that it can stand alone once following leaves the other out).
	results []kustomize.Result
	kfiles  []string
	decoded []partResult
}

// planKustomizations builds the kustomizations among files (those of a
// walk, and kustomization files named as paths) and says which files are
// still to be read. With no kustomization it costs nothing.
func planKustomizations(paths, files []string, opts Options) kustomizePlan {
	kfiles := map[string]string{} // directory -> its kustomization file
	var dirs []string
	for _, f := range files {
		if f == walk.StdinPath || !kustomize.IsKustomizationFile(filepath.Base(f)) || !isKustomization(f) {
			continue
		}
		d := filepath.Dir(f)
		if _, ok := kfiles[d]; !ok {
			dirs = append(dirs, d)
			kfiles[d] = f
		}
	}
	if len(dirs) == 0 {
		return kustomizePlan{plain: files}
	}
	sort.Strings(dirs)
	results := kustomize.Tree(filesys.MakeFsOnDisk(), dirs, kustomize.Options{Remote: opts.KustomizeRemote})
	plan := kustomizePlan{results: results}
	plan.plain, plan.notRead = ownFiles(paths, files, kfiles, results)
	decoder := &builtDecoder{opts: opts}
	decoder.opts.Cache = nil // built text is decoded afresh each load
	plan.decoded = make([]partResult, len(results))
	plan.kfiles = make([]string, len(results))
	forEachParallel(len(results), func(i int) {
		r := results[i]
		plan.kfiles[i] = kfiles[r.Dir]
		switch {
		case r.Err != nil && !kustomize.IsNotBuilt(r.Err):
			plan.decoded[i] = partResult{errs: []error{&Error{Source: Source{File: kfiles[r.Dir]}, Msg: "kustomize build failed: " + kustomize.Message(r.Err.Error())}}}
		case r.Err == nil:
			plan.decoded[i] = decoder.decode(r)
		}
	})
	for _, r := range results {
		plan.warnings = append(plan.warnings, buildWarnings(r, kfiles[r.Dir])...)
	}
	return plan
}

// parts are the results of the kustomizations keep keeps (all of them
// when keep is nil), one each; a kustomization that builds objects an
// earlier kept one builds too is an error rather than its objects.
func (plan kustomizePlan) parts(keep func(i int) bool) []partResult {
	var kept []kustomize.Result
	var decoded []partResult
	for i, r := range plan.results {
		if keep == nil || keep(i) {
			kept = append(kept, r)
			decoded = append(decoded, plan.decoded[i])
		}
	}
	overlap := overlappingBuilds(kept)
	for i := range decoded {
		if overlap[i] != nil {
			decoded[i] = partResult{errs: []error{overlap[i]}}
		}
	}
	return decoded
}

// isKustomization reports whether a file named like a kustomization is
// one (rather than, say, a Flux Kustomization object, read as it is).
func isKustomization(path string) bool {
	data, err := os.ReadFile(path)
	return err != nil || kustomize.IsKustomization(data)
}

// ownFiles sorts the files of a walk into those read as they are and
// those a kustomization's directory holds (its own and its
// subdirectories'): read through the builds if they use them, and not at
// all if not. Files named as paths are read whatever directory holds
// them, as `kubectl apply -f` would.
func ownFiles(paths, files []string, kfiles map[string]string, results []kustomize.Result) (plain []string, notRead []NotRead) {
	explicit := map[string]bool{}
	for _, p := range paths {
		explicit[filepath.Clean(p)] = true
	}
	used := map[string]bool{}
	for _, r := range results {
		if r.Build != nil {
			for path := range r.Build.Read {
				used[path] = true
			}
		}
	}
	for _, f := range files {
		owner, owned := ownerOf(f, kfiles)
		switch {
		case f == walk.StdinPath || (explicit[filepath.Clean(f)] && kfiles[filepath.Dir(f)] != f):
			plain = append(plain, f)
		case !owned:
			plain = append(plain, f)
		case kfiles[owner] != f && !used[walk.RealPath(f)]:
			notRead = append(notRead, NotRead{File: f, Kustomization: owner})
		}
	}
	return plain, notRead
}

// ownerOf is the nearest directory at or above f that holds a
// kustomization.
func ownerOf(f string, kfiles map[string]string) (string, bool) {
	for d := filepath.Dir(f); ; {
		if _, ok := kfiles[d]; ok {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// buildWarnings are the entries a build left out and, when it could not
// be built without them, that it was skipped; then kustomize's own
// deprecation warnings.
func buildWarnings(r kustomize.Result, kfile string) []Warning {
	var lo []kustomize.LeftOut
	if r.Build != nil {
		lo = r.Build.LeftOut
	}
	var out []Warning
	for _, l := range lo {
		out = append(out, Warning{Source: Source{File: displayPath(r, l.File)}, Msg: l.String(), Skipped: true})
	}
	if kustomize.IsNotBuilt(r.Err) {
		out = append(out, Warning{Source: Source{File: kfile}, Msg: "kustomization skipped: " + kustomize.Message(r.Err.Error()), Skipped: true})
	}
	if r.Build != nil {
		for _, d := range r.Build.Deprecations {
			out = append(out, Warning{Source: Source{File: displayPath(r, d.File)}, Msg: "kustomize: " + d.Msg})
		}
	}
	return out
}

// displayPath names a file a build read as the user would: relative to
// the kustomization's directory as given.
func displayPath(r kustomize.Result, abs string) string {
	if r.Build == nil {
		return abs
	}
	rel, err := filepath.Rel(r.Build.Dir, abs)
	if err != nil {
		return abs
	}
	return filepath.Join(r.Dir, rel)
}

// overlappingBuilds finds builds that make an object an earlier build
// makes too: two overlays of one application (overlays/prod and
// overlays/stage), which are never applied together. Rather than call
// each of their objects a duplicate, the error names both and asks for
// one of them.
func overlappingBuilds(results []kustomize.Result) []error {
	errs := make([]error, len(results))
	first := map[string]int{}
	for i, r := range results {
		if r.Build == nil || r.Err != nil {
			continue
		}
		var shared []string
		other := -1
		for _, res := range r.Build.Resources {
			key := res.Kind + " " + manifest.Qualified(res.Namespace, res.Name)
			// Kinds of two API groups (a v1 ServiceAccount and a
			// talos.dev one) are two objects, and a build cannot
			// overlap itself: kustomize refuses a true duplicate.
			id := apiGroup(res.APIVersion) + "/" + key
			if j, ok := first[id]; ok && j != i {
				if other < 0 {
					other = j
				}
				shared = append(shared, key)
				continue
			}
			first[id] = i
		}
		if other >= 0 {
			more := ""
			if len(shared) > 1 {
				more = fmt.Sprintf(" and %d more", len(shared)-1)
			}
			errs[i] = &Error{Source: Source{File: results[other].Dir},
				Msg: fmt.Sprintf("builds the same objects as %s (%s%s): give contourc one of them as PATH", r.Dir, shared[0], more)}
		}
	}
	return errs
}

// apiGroup is the group of an apiVersion, "" for the core group.
func apiGroup(apiVersion string) string {
	group, _, found := strings.Cut(apiVersion, "/")
	if !found {
		return ""
	}
	return group
}

// builtDecoder decodes the objects of builds, and the source files they
// came from once each, however many builds use them.
type builtDecoder struct {
	opts    Options
	sources sync.Map // absolute path -> *decodedSource
}

// decodedSource is a source file of a build, decoded on its own when a
// built object has errors: an error the source has too is placed on the
// source's line for it.
type decodedSource struct {
	once sync.Once
	name string
	text []byte // normalised; nil when the file cannot be read
	// errs are the file's own decoding errors, found only when a built
	// object has errors to place.
	errsOnce sync.Once
	errs     []error
}

// decode decodes a build's objects, in parallel, and points each object
// and error at its source. The objects are kustomize's own trees: the
// bounds a parse would check (alias nodes, depth) are checked on them.
func (d *builtDecoder) decode(r kustomize.Result) partResult {
	name := r.Dir + " (kustomize build)"
	parts := make([]partResult, len(r.Build.Resources))
	forEachParallel(len(parts), func(i int) { parts[i] = d.decodeResource(r, name, i) })
	p := partResult{skipped: map[string]int{}}
	p.objs, p.errs = mergeParts(parts, p.skipped)
	for i := range p.objs {
		p.objs[i].Source = d.objectSource(r, p.objs[i])
	}
	p.sorted = sortedKeyed(p.objs)
	return p
}

// decodeResource decodes the build's object i, substituted first when
// Flux variables are given, and points its errors at its source.
func (d *builtDecoder) decodeResource(r kustomize.Result, name string, i int) partResult {
	res := r.Build.Resources[i]
	p := partResult{skipped: map[string]int{}}
	var errs []error
	if err := manifest.CheckBounds(res.Node, d.opts.limits()); err != nil {
		errs = []error{&Error{Source: Source{File: name, Doc: i}, Kind: res.Kind, Name: res.Name, Msg: err.Msg}}
	} else if doc, err := d.substituted(name, i, res); err != nil {
		errs = []error{err}
	} else {
		p.objs, errs = loadDocuments(name, []manifest.Document{doc}, d.opts.namespaceRule(), p.skipped)
	}
	for _, err := range errs {
		p.errs = append(p.errs, d.placeError(r, res, err))
	}
	return p
}

// substituted is the document of the build's object i: the tree kustomize
// built, or, when Flux variables are given, what Flux's post-build
// substitution makes of it (loader/substitute), read as JSON.
func (d *builtDecoder) substituted(name string, i int, res kustomize.Resource) (manifest.Document, error) {
	doc := manifest.Document{Index: i, Root: res.Node}
	js, err := d.opts.Substitute.BuiltObject(res.Node)
	if err != nil || js == nil {
		return doc, err
	}
	docs, err := manifest.ParseJSON(name, js, d.opts.limits())
	if err != nil {
		return doc, err
	}
	if len(docs) == 0 {
		return doc, &Error{Source: Source{File: name, Doc: i}, Kind: res.Kind, Name: res.Name, Msg: "envsubst error: variable substitution left no object"}
	}
	docs[0].Index = i
	return docs[0], nil
}

// resourceAt is the built object of a document of the build's stream.
func resourceAt(r kustomize.Result, doc int) (kustomize.Resource, bool) {
	if doc < 0 || doc >= len(r.Build.Resources) {
		return kustomize.Resource{}, false
	}
	return r.Build.Resources[doc], true
}

// objectSource is where a built object came from: the first line of its
// document in its source file (package kustomize finds it), or the
// kustomization file for generated objects.
func (d *builtDecoder) objectSource(r kustomize.Result, o Object) Source {
	res, ok := resourceAt(r, o.Source.Doc)
	if !ok {
		return Source{File: r.Dir, Via: r.Dir}
	}
	src := d.originFile(r, res)
	src.Line = res.Origin.Line
	return src
}

// placeError points an error of the built object res at its source. A
// built document that is no object stays an error: the build's output
// holds objects only, so nothing is skipped as a file that is not
// manifests would be.
func (d *builtDecoder) placeError(r kustomize.Result, res kustomize.Resource, err error) error {
	if f, ok := err.(*substitute.Failure); ok {
		return d.substituteError(r, res, f)
	}
	if no, ok := err.(*notObject); ok {
		e := *no.err
		e.Msg = "not a Kubernetes object: " + e.Msg
		err = &e
	}
	if e, ok := err.(*Error); ok {
		return d.errorSource(r, res, e)
	}
	return err
}

// errorSource points an error in a built object at its source. An error
// the source document has too, word for word, keeps that document's line
// of the field; others are placed on the object's document. An error on
// a line that holds a Flux variable gets the hint a file's would
// (hintError).
func (d *builtDecoder) errorSource(r kustomize.Result, res kustomize.Resource, e *Error) *Error {
	out := *e
	out.Source = d.originFile(r, res)
	if res.Origin.File == "" {
		return substitute.HintError(&out, nil, d.opts.Substitute)
	}
	s := d.source(r, res.Origin.File)
	out.Source.Line = res.Origin.Line
	for _, err := range d.sourceErrors(s) {
		if se, ok := err.(*Error); ok && se.Kind == e.Kind && se.Msg == e.Msg && se.Source.Line >= res.Origin.Line && kustomize.NameMatches(e.Name, se.Name) {
			out.Source.Line = se.Source.Line
			break
		}
	}
	return substitute.HintError(&out, s.text, d.opts.Substitute)
}

// substituteError is the error of a built object Flux could not
// substitute, on the line of its source document that references the
// variable at fault (strict mode's unset one, or the one whose value broke
// the YAML), else on the document's first.
func (d *builtDecoder) substituteError(r kustomize.Result, res kustomize.Resource, f *substitute.Failure) *Error {
	e := &Error{Source: d.originFile(r, res), Kind: res.Kind, Namespace: res.Namespace, Name: res.Name, Msg: f.Msg}
	e.Source.Line = res.Origin.Line
	if res.Origin.File != "" {
		if s := d.source(r, res.Origin.File); s.text != nil {
			e.Source.Line = substitute.ReferenceLine(s.text, res.Origin.Line, f.Vars)
		}
	}
	return e
}

// originFile is the file a built object came from, without a line.
func (d *builtDecoder) originFile(r kustomize.Result, res kustomize.Resource) Source {
	o := res.Origin
	src := Source{Via: r.Dir}
	switch {
	case o.File != "":
		src.File = displayPath(r, o.File)
	case o.ConfiguredIn != "":
		src.File = displayPath(r, o.ConfiguredIn)
	case o.Repo != "":
		src.File = o.Repo + "//" + o.Path
		if o.Ref != "" {
			src.File += "?ref=" + o.Ref
		}
	default:
		src.File = r.Dir
	}
	return src
}

// source decodes a build's source file on its own, once.
func (d *builtDecoder) source(r kustomize.Result, abs string) *decodedSource {
	v, _ := d.sources.LoadOrStore(abs, &decodedSource{})
	s := v.(*decodedSource)
	s.once.Do(func() {
		data, ok := r.Build.Read[abs]
		if !ok {
			var err error
			if data, err = os.ReadFile(abs); err != nil {
				return
			}
		}
		name := displayPath(r, abs)
		text, err := manifest.NormalizeText(name, data)
		if err != nil {
			return
		}
		s.name, s.text = name, text
	})
	return s
}

// sourceErrors decodes a source file on its own for its errors, once.
func (d *builtDecoder) sourceErrors(s *decodedSource) []error {
	s.errsOnce.Do(func() {
		if s.text == nil {
			return
		}
		// Substituted as a file would be, so that its errors read as the
		// built object's do; where that fails, as it stands.
		text := s.text
		if sub, err := d.opts.Substitute.Apply(s.name, text); err == nil {
			text = sub
		}
		_, s.errs = loadFileText(s.name, text, d.opts, map[string]int{})
	})
	return s.errs
}
