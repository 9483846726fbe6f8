package serve

// One reload: read the files, translate, adapt and validate the resources,
// and publish them, or keep serving the last good configuration and say why.
//
// What counts as broken is what `contourc render` refuses: a file that
// cannot be read or parsed, an object the API server would refuse, an error
// from translate, a resource that fails Envoy's validation rules. Objects
// Contour would merely mark invalid in their status are not: Contour serves
// the valid rest, and so does serve (they are logged as warnings and
// counted in metrics).

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/render/graph"
	"github.com/contourc/contourc/translate"
)

// maxLoggedErrors bounds the error lines one failed reload logs; all of
// them (up to maxReportedErrors) are on /debug/reload.
const (
	maxLoggedErrors   = 20
	maxReportedErrors = 200
)

// build is a successful reload, not yet published.
type build struct {
	snap     *snapshot
	status   []translate.ObjectStatus
	counts   []objectCount
	warnings []string // notices and invalid objects, for the log
	phases   []any    // how long each step took, as log attributes
	reused   int      // documents taken from the decode cache
	graph    graphFacts
}

func (s *Server) reload(ctx context.Context, reason string) {
	start := time.Now()
	b, err := s.buildWithin(ctx, reason)
	if errors.Is(err, errShutdown) {
		return // not a failure of the files: nothing to report
	}
	changed := false
	if err == nil {
		changed, err = s.publish(ctx, b)
	}
	took := time.Since(start)
	// Counted once reported, so that whoever sees the count go up finds
	// the reload's report.
	defer s.metrics.reloaded(took, err == nil)
	if err != nil {
		s.failed(err, reason, took)
		return
	}
	s.succeeded(b, changed, reason, took)
	if changed {
		s.releaseMemoryLater()
	}
}

// releaseDelay is how long reloads must pause before serve hands the
// memory they used back to the system.
const releaseDelay = time.Second

// releaseMemoryLater hands the memory reloads used back to the system once
// they pause for releaseDelay. A reload allocates several times what it
// keeps (at 5,000 HTTPProxies about 1 GB for 330 MB kept), and the Go
// runtime returns freed memory only slowly, so without this an edge box
// would see serve's peak as its steady size. Waiting for a pause keeps the
// collection this forces, and taking the memory back, out of a burst of
// edits.
func (s *Server) releaseMemoryLater() {
	s.releaseMu.Lock()
	defer s.releaseMu.Unlock()
	if s.releaseTimer != nil && s.releaseTimer.Stop() {
		s.releases.Done() // the release it held back will not run
	}
	s.releases.Add(1)
	s.releaseTimer = time.AfterFunc(releaseDelay, func() {
		defer s.releases.Done()
		debug.FreeOSMemory()
	})
}

// stopReleases cancels a pending release and waits for a running one.
func (s *Server) stopReleases() {
	s.releaseMu.Lock()
	if s.releaseTimer != nil && s.releaseTimer.Stop() {
		s.releases.Done()
	}
	s.releaseMu.Unlock()
	s.releases.Wait()
}

// reloadRequested is the reason of a reload asked for by hand (SIGHUP):
// such a reload reads every file again rather than trusting what stat
// says of it.
const reloadRequested = "reload requested"

// loadOptions are how a reload for reason loads the files: through the
// decode cache, and, when asked for by hand, hashing every file.
func loadOptions(cache *loader.Cache, reason string) loader.Options {
	return loader.Options{Cache: cache, Rehash: reason == reloadRequested}
}

// build is buildWith the server's caches, for tests.
func (s *Server) build(reason string) (*build, error) { return s.buildWith(reason, s.caches) }

// buildWith reads and translates the files exactly as render does, reusing
// what c holds, then makes the resources what serve sends.
func (s *Server) buildWith(reason string, c *caches) (*build, error) {
	opts, err := s.cfg.Options()
	if err != nil {
		return nil, err
	}
	// Built for ADS from the start: rewriting every config source
	// afterwards meant unpacking and packing again every connection
	// manager and TLS context.
	opts.ADS = s.cfg.ConfigSource == ConfigSourceADS
	opts.Memo = c.memo
	var phases []any
	start := time.Now()
	phase := func(name string) {
		phases = append(phases, name, time.Since(start).Round(time.Millisecond).String())
		start = time.Now()
	}
	lo := loadOptions(c.decoded, reason)
	lo.Exclude, lo.Namespace, lo.Substitute = s.cfg.Load.Exclude, s.cfg.Load.Namespace, s.cfg.Load.Substitute
	loaded, err := s.load(s.cfg.Paths, lo)
	if err != nil {
		return nil, err
	}
	var annotate func([]translate.ObjectStatus)
	if s.cfg.Prepare != nil {
		if annotate, err = s.cfg.Prepare(loaded); err != nil {
			return nil, err
		}
	}
	var complete func([]translate.ObjectStatus) []translate.ObjectStatus
	if s.cfg.Select != nil {
		if opts, complete, err = s.cfg.Select(loaded, opts); err != nil {
			return nil, err
		}
	}
	phase("load")
	res, err := translate.Translate(loaded.Objects, opts)
	if err != nil {
		return nil, err
	}
	if complete != nil {
		res.Status = complete(res.Status)
	}
	phase("translate")
	if annotate != nil {
		annotate(res.Status)
	}
	// Judged now, so that the loaded objects not kept by the decode cache
	// are dead, and collectable, for the rest of it.
	counts, invalid := s.judge(loaded.Objects, res.Status)
	objects := graph.ObjectsFrom(loaded.Objects)
	forConfigSource(&res.Resources, s.cfg.ConfigSource)
	var served *snapshot
	if p := s.current.Load(); p != nil {
		served = p.snap
	}
	snap, err := newSnapshot(&res.Resources, served)
	if err != nil {
		return nil, err
	}
	phase("hash")
	// Validated in the form that is served. A resource whose content hash
	// is that of the one being served passed already: after a one-file
	// change only a handful are checked again.
	if err := s.validate(snap.changedSince(served)); err != nil {
		return nil, err
	}
	phase("validate")
	warnings := invalid
	for _, n := range res.Notices {
		warnings = append(warnings, n.String())
	}
	return &build{snap: snap, status: res.Status, counts: counts, warnings: warnings, phases: phases, reused: c.decoded.Hits(),
		graph: graphFacts{objects: objects, notices: res.Notices}}, nil
}

// publish serves b, telling only the clients whose resources changed, and
// reports whether anything did.
func (s *Server) publish(ctx context.Context, b *build) (bool, error) {
	prev := s.current.Load()
	changed := prev == nil || prev.snap.version != b.snap.version
	if changed {
		if err := s.cache.publish(ctx, b.snap); err != nil {
			return false, fmt.Errorf("publishing the configuration: %w", err)
		}
		s.metrics.serving(b.snap.version)
	}
	// The status may change when the resources do not (a message in an
	// invalid object's status), so it is replaced every time.
	s.current.Store(&published{snap: b.snap, status: b.status, graph: b.graph})
	s.metrics.counted(b.counts)
	return changed, nil
}

// succeeded logs a successful reload: at Info when it changed something or
// ended a run of failures, and the warnings the previous one did not have.
func (s *Server) succeeded(b *build, changed bool, reason string, took time.Duration) {
	prev := s.reports.last()
	s.reports.add(reloadReport{Time: time.Now(), OK: true, Reason: reason, Version: b.snap.version, Duration: took.Seconds()})
	for _, w := range s.reports.newWarnings(b.warnings) {
		// What render prints as "warning: ...": served, but not as
		// written (an invalid object), or worth knowing.
		s.log.Warn("input warning", "warning", w)
	}
	attrs := []any{"version", b.snap.version, "reason", reason, "took", took.Round(time.Millisecond).String(), "documents_reused", b.reused}
	attrs = append(attrs, b.phases...)
	switch {
	case changed:
		s.log.Info("serving a new configuration", attrs...)
	case !prev.OK && !prev.Time.IsZero():
		s.log.Info("reload succeeded again; the configuration is unchanged", attrs...)
	default:
		s.log.Debug("reloaded; nothing changed", attrs...)
	}
}

// failed keeps the last good configuration and says why on the log,
// /debug/reload, /readyz and in metrics (the caller counted it).
func (s *Server) failed(err error, reason string, took time.Duration) {
	lines := errorLines(err)
	serving := s.Version()
	for i, l := range lines {
		if i == maxLoggedErrors {
			s.log.Error(fmt.Sprintf("... and %d more error(s); see /debug/reload", len(lines)-i))
			break
		}
		s.log.Error("reload failed; keeping the last good configuration", "error", l, "serving", orNone(serving))
	}
	if len(lines) > maxReportedErrors {
		lines = append(lines[:maxReportedErrors:maxReportedErrors], fmt.Sprintf("... and %d more", len(lines)-maxReportedErrors))
	}
	s.reports.add(reloadReport{Time: time.Now(), OK: false, Reason: reason, Version: serving, Duration: took.Seconds(),
		Abandoned: errors.Is(err, errAbandoned), Errors: lines})
}

// errorLines splits joined errors into one line per problem, each scrubbed
// of key material, as `contourc render` prints them.
func errorLines(err error) []string {
	var out []string
	var walk func(error)
	walk = func(e error) {
		if multi, ok := e.(interface{ Unwrap() []error }); ok {
			for _, p := range multi.Unwrap() {
				walk(p)
			}
			return
		}
		for _, l := range strings.Split(e.Error(), "\n") {
			if l != "" {
				out = append(out, redactText(l))
			}
		}
	}
	walk(err)
	return out
}

func orNone(version string) string {
	if version == "" {
		return "nothing yet"
	}
	return version
}

// judge counts objects by kind and validity and lists, as render warns
// about them, those Contour would mark invalid.
func (s *Server) judge(objs []loader.Object, status []translate.ObjectStatus) ([]objectCount, []string) {
	type ref struct{ kind, ns, name string }
	bad := map[ref]bool{}
	var invalid []string
	for _, st := range status {
		if s.cfg.Judge == nil {
			break
		}
		if ok, why := s.cfg.Judge(st); !ok {
			bad[ref{st.Kind, st.Namespace, st.Name}] = true
			invalid = append(invalid, objectRef(st)+": "+why)
		}
	}
	type key struct {
		kind  string
		valid bool
	}
	n := map[key]int{}
	// Counted in runs: the objects come ordered by kind, and looking each
	// of 20,000 up in two maps took a few milliseconds of every reload.
	var run key
	runLength := 0
	for _, o := range objs {
		k := key{o.Kind, len(bad) == 0 || !bad[ref{o.Kind, o.Obj.GetNamespace(), o.Obj.GetName()}]}
		if k != run {
			if runLength > 0 {
				n[run] += runLength
			}
			run, runLength = k, 0
		}
		runLength++
	}
	if runLength > 0 {
		n[run] += runLength
	}
	counts := make([]objectCount, 0, len(n))
	for k, c := range n {
		counts = append(counts, objectCount{kind: k.kind, valid: k.valid, n: c})
	}
	sort.Slice(counts, func(i, j int) bool {
		if counts[i].kind != counts[j].kind {
			return counts[i].kind < counts[j].kind
		}
		return counts[i].valid
	})
	return counts, invalid
}

// objectRef names an object as render's warnings do: "file:line: Kind ns/name".
func objectRef(st translate.ObjectStatus) string {
	name := st.Name
	if st.Namespace != "" {
		name = st.Namespace + "/" + name
	}
	ref := st.Kind + " " + name
	if src := st.Source.String(); src != "" {
		ref = src + ": " + ref
	}
	return ref
}

// reloadReport is one reload as /debug/reload shows it.
type reloadReport struct {
	Time     time.Time `json:"time"`
	OK       bool      `json:"successful"`
	Reason   string    `json:"reason"`
	Version  string    `json:"serving_version"`
	Duration float64   `json:"duration_seconds"`
	// Abandoned says the reload did not finish by its deadline
	// (deadline.go): what was read is unknown, so /readyz says not ready.
	Abandoned bool     `json:"abandoned,omitempty"`
	Errors    []string `json:"errors,omitempty"`
}

// reportLog keeps the last reload's report, and the warnings already
// logged, so that a reload repeats none of the warnings of the one before.
// Both are replaced at each reload, so neither grows.
type reportLog struct {
	mu     sync.Mutex
	report reloadReport
	warned map[string]bool
}

func (r *reportLog) add(rep reloadReport) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.report = rep
}

func (r *reportLog) last() reloadReport {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.report
}

// newWarnings returns the warnings not in the previous successful reload
// and remembers these.
func (r *reportLog) newWarnings(warnings []string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var fresh []string
	now := make(map[string]bool, len(warnings))
	for _, w := range warnings {
		if !r.warned[w] && !now[w] {
			fresh = append(fresh, w)
		}
		now[w] = true
	}
	r.warned = now
	return fresh
}
