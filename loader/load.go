package loader

import (
	"errors"
	"io"
	"slices"

	"github.com/contourc/contourc/loader/engines"
	"github.com/contourc/contourc/loader/follow"
	"github.com/contourc/contourc/loader/helmchart"
	"github.com/contourc/contourc/loader/ignore"
	"github.com/contourc/contourc/loader/internal/fastyaml"
	"github.com/contourc/contourc/loader/internal/manifest"
	"github.com/contourc/contourc/loader/internal/mirror"
	"github.com/contourc/contourc/loader/substitute"
	"github.com/contourc/contourc/loader/walk"
)

// Options tune Load.
type Options struct {
	// Stdin is read when a path is "-".
	Stdin io.Reader
	// MaxInputSize bounds the bytes of one Load's input, all files and
	// standard input together (DefaultMaxInputSize when zero): the
	// --max-input-size flag.
	MaxInputSize int64
	// NamedPipes lets a path given by name be a named pipe (/dev/stdin,
	// <(...)), read once to its end. serve leaves it off: it reads its
	// files again at every reload, and would find a pipe empty.
	NamedPipes bool
	// MaxAliasNodes bounds the nodes YAML aliases may add to one document
	// (DefaultMaxAliasNodes when zero).
	MaxAliasNodes int64
	// MaxDepth bounds the nesting of one document (DefaultMaxDepth when
	// zero).
	MaxDepth int
	// Cache, when set, keeps what each document decoded to from one Load
	// to the next, so that reloading files of which little changed
	// decodes only what changed.
	Cache *Cache
	// Rehash makes a Load with a Cache read and hash every file to tell
	// whether it changed, trusting no stat stamp: for a reload asked for
	// by hand, perhaps because stat did not show a change (a network file
	// system's cached attributes).
	Rehash bool
	// Exclude leaves out the paths its patterns match, relative to the
	// path given to Load that they are found under (loader/walk).
	Exclude *ignore.Matcher
	// Namespace, when set, is the namespace of namespaced objects that
	// have none, as `kubectl apply -n` sets it (namespace.go). A Cache
	// must be used with one Namespace and one Substitute.
	Namespace string
	// Substitute, when it holds variables, has Flux's post-build
	// substitution done on every document (loader/substitute).
	Substitute *substitute.Substitution

	// keepOwnNamespace makes Namespace the namespace of objects that
	// have none only, not refusing those that have another, as Argo CD's
	// destination.namespace and helm's -n are (set for followed entries).
	keepOwnNamespace bool
	// Follow, when set, has GitOps entry points followed (loader/follow).
	Follow *Follow

	budget *inputBudget // what is left of MaxInputSize, set by Load
	// KustomizeRemote lets kustomize builds fetch remote resources;
	// without it they are left out with a warning (kustomizations.go).
	KustomizeRemote bool
	// Helm is how chart directories given as paths are rendered
	// (helmcharts.go); nil renders them as helm template does with no
	// flags. Its Namespace defaults to Namespace.
	Helm *helmchart.Options
}

func (o Options) maxInputSize() int64 {
	if o.MaxInputSize > 0 {
		return o.MaxInputSize
	}
	return DefaultMaxInputSize
}

func (o Options) namespaceRule() namespaceRule {
	return namespaceRule{name: o.Namespace, keepOwn: o.keepOwnNamespace}
}

func (o Options) limits() manifest.Limits { return manifest.NewLimits(o.MaxAliasNodes, o.MaxDepth) }

// Load reads every path (file, directory walked recursively for .yaml, .yml
// and .json files, or "-" for Options.Stdin) and returns the objects in a
// deterministic order. On any problem it returns every *Error it found
// (joined with errors.Join) and no result.
func Load(paths []string, opts Options) (*Result, error) {
	filter := &walk.Filter{Exclude: opts.Exclude}
	paths, charts := chartPaths(paths)
	files, named, errs := walk.ExpandPaths(paths, filter)
	budget, err := checkInputSize(files, opts.maxInputSize())
	if err != nil {
		return nil, errors.Join(append(errs, err)...)
	}
	opts.budget = budget
	// Charts and Flux Kustomizations of this load share the helper
	// processes that run their engines: one start, not one per entry.
	defer engines.Hold()()
	opts.Cache.begin()
	defer opts.Cache.end()
	kz := planKustomizations(paths, files, opts)
	files = kz.plain
	res := &Result{Skipped: map[string]int{}, Warnings: kz.warnings, NotRead: kz.notRead}
	parts := make([]partResult, len(files))
	forEachParallel(len(files), func(i int) { parts[i] = loadFile(files[i], opts.NamedPipes && named[files[i]], opts) })
	// Charts given as paths are rendered before following: what a chart
	// renders is what helm installs, and the Argo CD Applications or Flux
	// Kustomizations among it (an app-of-apps chart) are entry points.
	var chartParts []partResult
	if len(charts) > 0 {
		var warnings []Warning
		chartParts, warnings, res.Charts = loadCharts(charts, opts)
		res.Warnings = append(res.Warnings, warnings...)
	}
	followed := false
	if opts.Follow != nil {
		parts, followed, errs = res.follow(parts, chartParts, files, kz, opts, errs)
	} else {
		parts = append(parts, kz.parts(nil)...)
	}
	parts = append(parts, chartParts...)
	objs, fileErrs := mergeParts(parts, res.Skipped)
	if followed {
		objs = follow.DropIdentical(objs)
	}
	res.SkippedFiles = skippedFiles(filter.Left, parts)
	errs = append(errs, fileErrs...)
	sorted, dup := sortedObjects(objs, parts)
	// Sorted, duplicates are neighbours: only when there are some are they
	// looked for in input order, which says which came first. Indexing
	// every object by key for that was a tenth of a reload's loading.
	if dup {
		errs = append(errs, findDuplicates(objs)...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sorted, res.GitOps = partition(sorted, IsGitOps)
	res.Objects, res.SecretSources = partition(sorted, isSecretSourceObject)
	res.SecretSources, res.Workloads = partition(res.SecretSources, isWorkloadObject)
	res.Read = len(objs) - len(res.SecretSources) - len(res.GitOps) - len(res.Workloads)
	if opts.Follow == nil {
		for _, o := range res.GitOps {
			res.Skipped[o.APIVersion+"/"+o.Kind]++
		}
		res.GitOps = nil
	}
	return res, nil
}

// follow follows the entry points among the objects of the walk's parts
// (files' and, from kz, kustomizations') and of the charts given as paths,
// and returns the parts to merge: the walk's that no followed entry
// covers, then the entries' builds (the charts' parts are the caller's).
// followed says some entry built objects.
func (res *Result) follow(parts, chartParts []partResult, files []string, kz kustomizePlan, opts Options, errs []error) (_ []partResult, followed bool, _ []error) {
	var walked []Object
	for _, p := range parts {
		walked = append(walked, p.objs...)
	}
	for _, p := range kz.decoded {
		walked = append(walked, p.objs...)
	}
	for _, p := range chartParts {
		walked = append(walked, p.objs...)
	}
	dec := &entryDecoder{opts: opts}
	fw := opts.Follow.Run(walked, opts.Substitute, dec)
	if len(fw.Reports) == 0 {
		return append(parts, kz.parts(nil)...), false, errs
	}
	var kept []partResult
	for i, p := range parts {
		if files[i] == walk.StdinPath || !fw.Covered(files[i]) {
			kept = append(kept, p)
		}
	}
	kept = append(kept, kz.parts(func(i int) bool {
		return !fw.Covered(kz.results[i].Dir) && !fw.Covered(kz.kfiles[i])
	})...)
	res.Warnings = slices.DeleteFunc(res.Warnings, func(w Warning) bool { return fw.Covered(w.Source.File) })
	res.NotRead = slices.DeleteFunc(res.NotRead, func(n NotRead) bool { return fw.Covered(n.File) })
	for _, p := range dec.parts {
		res.Warnings = append(res.Warnings, p.warnings...)
	}
	for i := range dec.skipped {
		kept = append(kept, partResult{file: &dec.skipped[i]})
	}
	res.Entries = fw.Reports
	return append(kept, dec.parts...), len(dec.parts) > 0, append(errs, fw.Errs...)
}

// sortedObjects is objs, the objects of parts, with Endpoints mirrored and
// sorted (sortObjects), in a slice of its own, and whether two have the
// same key. When every part holds its objects sorted too (files the decode
// cache keeps) and there are no Endpoints to mirror, the parts are merged
// rather than sorted again.
func sortedObjects(objs []Object, parts []partResult) ([]Object, bool) {
	runs := make([][]keyedObject, 0, len(parts))
	for _, p := range parts {
		if p.sorted == nil && len(p.objs) > 0 {
			runs = nil
			break
		}
		runs = append(runs, p.sorted)
	}
	if runs != nil && !mirror.HasEndpoints(objs) {
		return mergeSorted(runs)
	}
	sorted := mirror.Endpoints(slices.Clone(objs))
	dup := sortObjects(sorted)
	return sorted, dup
}

// loadFile reads, parses and decodes one input; named says it was given by
// name, and so may be a named pipe.
func loadFile(path string, named bool, opts Options) partResult {
	var stamp fileStamp
	if path != walk.StdinPath {
		if !opts.Rehash {
			stamp = opts.Cache.stamp(path)
		}
		if whole, ok := opts.Cache.unchanged(path, stamp, opts.maxInputSize()); ok {
			return whole
		}
	}
	if f := skippedByName(path); f != nil {
		return partResult{file: f}
	}
	name, data, err := readInput(path, named, opts)
	if err != nil {
		return partResult{errs: []error{err}}
	}
	if whole, ok := opts.Cache.file(name, data, stamp); ok {
		return whole
	}
	data, err = manifest.NormalizeText(name, data)
	if err != nil {
		return partResult{errs: []error{err}}
	}
	source := data
	data, err = opts.Substitute.Apply(name, data)
	if err != nil {
		return partResult{errs: []error{err}}
	}
	whole := partResult{skipped: map[string]int{}}
	whole.objs, whole.errs = loadFileText(name, data, opts, whole.skipped)
	whole = skipNotManifest(name, data, whole)
	substitute.HintVariables(whole.errs, source, opts.Substitute)
	// Sorted here, file by file on every CPU, so that the files' objects
	// are merged rather than all sorted at the end on one (30 ms at
	// 20,000); the decode cache keeps them sorted for the next load too.
	whole.sorted = sortedKeyed(whole.objs)
	opts.Cache.keep(name, whole)
	return whole
}

// loadFileText parses and decodes a file's text: JSON when it looks like JSON
// and is, YAML otherwise.
func loadFileText(name string, data []byte, opts Options, skipped map[string]int) ([]Object, []error) {
	if manifest.StartsLikeJSON(data) {
		p := opts.Cache.decode(name, func() string { return docKey(0, -1, data) }, func() partResult {
			p := partResult{skipped: map[string]int{}}
			docs, err := manifest.ParseJSON(name, data, opts.limits())
			switch {
			case err == nil:
				p.objs, p.errs = loadDocuments(name, docs, opts.namespaceRule(), p.skipped)
			case manifest.IsJSONName(name):
				p.errs = []error{err}
			default:
				// Not JSON after all: YAML flow style ({kind: Service, ...}).
				p.notJSON = true
			}
			return p
		})
		if !p.notJSON {
			return mergeParts([]partResult{p}, skipped)
		}
	}
	return loadYAML(name, data, opts.limits(), opts.Cache, opts.namespaceRule(), skipped)
}

// partResult is what one file, or one document of a YAML stream, gave.
// Files and documents are loaded in parallel; results are merged in input
// order so that errors come out in a stable order.
type partResult struct {
	objs    []Object
	errs    []error
	skipped map[string]int
	notJSON bool // a file that looked like JSON is YAML
	// warnings are what a followed entry's build went past.
	warnings []Warning
	// file, for a file that is not manifests, is its notice; such a
	// file gives nothing else (notmanifest.go).
	file *SkippedFile
	// sorted, for a whole file the decode cache keeps, are its objects
	// as sortObjects orders them, with their keys; nil otherwise.
	sorted []keyedObject
}

// mergeParts concatenates results in order, adding up skipped counts.
func mergeParts(parts []partResult, skipped map[string]int) ([]Object, []error) {
	n := 0
	for _, p := range parts {
		n += len(p.objs)
	}
	objs := make([]Object, 0, n) // one allocation, not a doubling per few thousand
	var errs []error
	for _, p := range parts {
		objs = append(objs, p.objs...)
		errs = append(errs, p.errs...)
		for k, n := range p.skipped {
			skipped[k] += n
		}
	}
	return objs, errs
}

// loadYAML parses and decodes the documents of a YAML stream in parallel.
func loadYAML(name string, data []byte, lim manifest.Limits, cache *Cache, namespace namespaceRule, skipped map[string]int) ([]Object, []error) {
	chunks := manifest.SplitYAMLStream(data)
	if cache == nil {
		// data was read for this load and normalised, and is not
		// written again.
		manifest.ViewChunks(chunks, data)
	}
	parts := make([]partResult, len(chunks))
	forEachParallel(len(chunks), func(i int) {
		ch := chunks[i]
		parts[i] = cache.decode(name, func() string { return docKey(ch.Line, ch.Index, ch.Text) }, func() partResult {
			p := partResult{skipped: map[string]int{}}
			// The chunk's tree is dead once its objects are decoded.
			arena := fastyaml.GetArena()
			defer arena.Release()
			docs, err := manifest.ParseYAMLChunk(name, ch, lim, arena)
			if err != nil {
				p.errs = []error{err}
				return p
			}
			p.objs, p.errs = loadDocuments(name, docs, namespace, p.skipped)
			return p
		})
	})
	return mergeParts(parts, skipped)
}

// loadDocuments finds and decodes the objects of parsed documents;
// namespace is Options.Namespace.
func loadDocuments(name string, docs []manifest.Document, namespace namespaceRule, skipped map[string]int) ([]Object, []error) {
	var objs []Object
	var errs []error
	for _, doc := range docs {
		raws, e := splitDocument(name, doc)
		errs = append(errs, e...)
		for _, raw := range raws {
			o, e := loadObject(raw, namespace, skipped)
			objs = append(objs, o...)
			errs = append(errs, e...)
		}
	}
	return objs, errs
}

// loadObject decodes, skips or rejects one raw object.
func loadObject(raw rawObject, namespace namespaceRule, skipped map[string]int) ([]Object, []error) {
	if err := placeNamespace(&raw, namespace); err != nil {
		return nil, []error{err}
	}
	if isSecretSource(raw) || isGitOpsRaw(raw) {
		return loadSecretSource(raw)
	}
	if isWorkload(raw) {
		skipped[raw.apiVersion+"/"+raw.kind]++ // not routed: -v still counts it
		return loadSecretSource(raw)
	}
	what, spec, msg, at := classify(raw)
	switch what {
	case skip:
		skipped[raw.apiVersion+"/"+raw.kind]++
		return nil, nil
	case reject:
		return nil, []error{&Error{Source: raw.source.At(lineOf(raw.node, at)), Kind: raw.kind, Namespace: raw.namespace, Name: raw.name, Msg: msg}}
	}
	if secretType := unkeptSecretType(raw, spec); secretType != "" {
		return nil, skipUnkeptSecret(raw, spec, secretType, skipped)
	}
	obj, errs := decodeObject(raw, spec)
	if errs != nil {
		return nil, errs
	}
	return []Object{obj}, nil
}

// partition takes the objects match says out of objs, keeping the order of
// both; nothing is copied when none matches (the common case: an input
// without GitOps objects, secret sources or workloads).
func partition(objs []Object, match func(Object) bool) (rest, matched []Object) {
	i := slices.IndexFunc(objs, match)
	if i < 0 {
		return objs, nil
	}
	rest = slices.Clone(objs[:i])
	for _, o := range objs[i:] {
		if match(o) {
			matched = append(matched, o)
		} else {
			rest = append(rest, o)
		}
	}
	return rest, matched
}
