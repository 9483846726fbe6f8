package render

// Printing many resources as JSON, on every CPU.

import (
	"errors"
	"slices"
	"sync"

	"github.com/contourc/contourc/internal/par"
	"github.com/contourc/contourc/render/internal/protojson"
	"github.com/contourc/contourc/translate"
)

// document is one printed resource, in segments written one after the
// other: a resource with a long list keeps the list's pieces as they were
// printed (see protojson.Encoder.Segments); others are one segment.
type document [][]byte

// docSink receives printed resources in order, each as its segments and
// then its end. A resource's first segments may come before the rest of it
// is printed.
type docSink interface {
	segment(section, item int, segment []byte) error
	end(section, item int) error
	// borrows says the sink is done with a segment when segment returns
	// (it copies what it keeps): the printers then print into the same
	// buffers again. Otherwise the sink keeps the segments it is given.
	borrows() bool
}

// printValidSections prints every resource of every section as JSON laid
// out at elementPrefix and hands each to sink in section and item order,
// checking each as Validate does. If one breaks the rules it returns
// Validate's error; sink may have been given the start of that resource,
// but nothing after it.
func printValidSections(r *translate.Resources, sections []typeSection, sink docSink) error {
	return printSections(r, sections, sink, false)
}

// printSections is printValidSections; with drop, each resource is let go
// of once printed (see JSONStreamOnce), and r, emptied by the caller, is
// not read.
func printSections(r *translate.Resources, sections []typeSection, sink docSink, drop bool) error {
	e := protojson.Indented(elementPrefix)
	e.Validate, e.Drop = true, drop
	if r != nil {
		e.Unpacked = r.Unpacked
	}
	err := printAll(e, sections, true, sink)
	var invalid *protojson.InvalidError
	if errors.As(err, &invalid) {
		// The encoder stops at the first problem; Validate's error
		// names each invalid resource and where in it the problem is.
		// Those let go of were printed, so valid.
		if verr := validateSections(sections); verr != nil {
			return verr
		}
	}
	return err
}

// marshalAll prints every resource of every section in e's layout and
// returns them all (see printAll).
func marshalAll(e *protojson.Encoder, sections []typeSection, segmented bool) ([][]document, error) {
	docs := newDocTable(sections)
	if err := printAll(e, sections, segmented, docs); err != nil {
		return nil, err
	}
	return docs, nil
}

// docTable holds the printed documents of sections, one list per section;
// as a docSink it keeps every document.
type docTable [][]document

func newDocTable(sections []typeSection) docTable {
	docs := make(docTable, len(sections))
	for i, s := range sections {
		docs[i] = make([]document, len(s.items))
	}
	return docs
}

func (d docTable) segment(section, item int, segment []byte) error {
	d[section][item] = append(d[section][item], segment)
	return nil
}

func (d docTable) end(int, int) error { return nil }
func (d docTable) borrows() bool      { return false }

// bigDocument is the size from which the buffer a resource was printed in
// is not kept for the next one: it would hold that memory to the end.
const bigDocument = 1 << 20

// printAll prints every resource of every section in e's layout, as
// documents of one segment unless segmented, and hands them to sink in
// section and item order, each as soon as it and those before it are
// printed (sink may keep them, or borrow them: see inOrder). A segmented
// resource's long list is handed on piece by piece as it is printed, so
// that a big listener need not be held whole. Resources are independent,
// so they are shared out among the CPUs. If any fails, or sink does, sink gets nothing after that
// resource's segments printed so far, and the error is that of the first
// failure in output order, so it is the same on every run.
func printAll(e *protojson.Encoder, sections []typeSection, segmented bool, sink docSink) error {
	type job struct{ section, item int }
	var jobs []job
	for i, s := range sections {
		for j := range s.items {
			jobs = append(jobs, job{i, j})
		}
	}
	out := newInOrder(
		func(n int, segment []byte) error { return sink.segment(jobs[n].section, jobs[n].item, segment) },
		func(n int) error { return sink.end(jobs[n].section, jobs[n].item) })
	out.lent = sink.borrows()
	par.Workers(len(jobs), func() func(int) {
		var scratch []byte // reused between resources, so a document is allocated once, at its size
		we := e.ForWorker()
		return func(n int) {
			if !out.mayStart(n) {
				return // it would not be passed on
			}
			jb := jobs[n]
			s := sections[jb.section]
			pe := we
			if segmented {
				one := *we // the encoder of this one resource
				one.Segments = &protojson.SegmentPasser{Pass: func(segment []byte) bool { return out.add(n, segment) }}
				pe = &one
			}
			printed, err := pe.Marshal(scratch[:0], s.items[jb.item])
			if err != nil {
				out.fail(n, &ResourceError{Kind: s.kind, Name: s.names[jb.item], Err: err})
				return
			}
			scratch = printed
			if e.Drop {
				s.items[jb.item] = nil // this job's own element
			}
			if out.done(n, printed) || cap(printed) >= bigDocument {
				scratch = nil
			}
		}
	})
	return out.err
}

// inOrder passes the segments of documents printed in any order on, in job
// order. Only what is printed ahead of the job being passed on waits in
// memory.
//
// Whoever gives it a segment may print into the segment's buffer again
// unless inOrder says it took the buffer: it takes a big segment it keeps
// (one waiting, or one given to a sink that keeps segments) and copies a
// small one, which costs less than a new buffer grown to size.
type inOrder struct {
	// lent says emit is done with a segment when it returns (the sink
	// copies what it keeps).
	lent    bool
	mu      sync.Mutex
	next    int // the job to pass on next
	pending map[int]*pendingDoc
	emit    func(n int, segment []byte) error
	finish  func(n int) error
	// failedAt is the first job that failed, and err its error; nothing
	// from it on is passed on.
	failedAt int
	err      error
}

// pendingDoc is what was printed of a job that cannot be passed on yet.
type pendingDoc struct {
	segments [][]byte
	done     bool
}

func newInOrder(emit func(n int, segment []byte) error, finish func(n int) error) *inOrder {
	return &inOrder{pending: map[int]*pendingDoc{}, emit: emit, finish: finish}
}

// mayStart says whether job n is still worth printing: not when a job
// before it failed.
func (o *inOrder) mayStart(n int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.passing(n)
}

func (o *inOrder) passing(n int) bool { return o.err == nil || n < o.failedAt }

// add is the next segment of job n, which is not printed whole yet; it
// reports whether it took the segment's buffer.
func (o *inOrder) add(n int, segment []byte) (taken bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.passing(n) {
		return false
	}
	if n == o.next {
		taken, _ = o.emitGiven(n, segment)
		return taken
	}
	p := o.pendingOf(n)
	kept, taken := keep(segment)
	p.segments = append(p.segments, kept)
	return taken
}

// keepBelow is the size under which a segment kept is copied rather than
// taken.
const keepBelow = 64 << 10

// keep is what to keep of a segment given: a copy when it is small, the
// segment itself, taken, otherwise.
func keep(segment []byte) (kept []byte, taken bool) {
	if len(segment) < keepBelow {
		return slices.Clone(segment), false
	}
	return segment, true
}

// done is job n's last segment: the job is printed. It reports whether
// it took the segment's buffer.
func (o *inOrder) done(n int, last []byte) (taken bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.passing(n) {
		return false
	}
	p := o.pendingOf(n)
	p.done = true
	if n != o.next {
		kept, taken := keep(last)
		p.segments = append(p.segments, kept)
		return taken
	}
	// The job's earlier segments were passed on already: as they came
	// (add), or, those printed before it was next, as it became next.
	taken, ok := o.emitGiven(n, last)
	if ok {
		o.passPending()
	}
	return taken
}

// emitGiven passes a segment given for job n, the next job, on: kept
// first when the sink keeps segments. ok is false when the sink failed.
func (o *inOrder) emitGiven(n int, segment []byte) (taken, ok bool) {
	if !o.lent {
		segment, taken = keep(segment)
	}
	return taken, o.emitSegment(n, segment)
}

// passPending passes on the jobs printed ahead, from the next one on, up
// to one not done yet, whose segments so far it passes on.
func (o *inOrder) passPending() {
	for o.passing(o.next) {
		p, ok := o.pending[o.next]
		if !ok {
			return
		}
		for _, segment := range p.segments {
			if !o.emitSegment(o.next, segment) {
				return
			}
		}
		p.segments = nil
		if !p.done {
			return // it passes its next segments on itself
		}
		delete(o.pending, o.next)
		if err := o.finish(o.next); err != nil {
			o.failedAt, o.err = o.next, err
			return
		}
		o.next++
	}
}

func (o *inOrder) pendingOf(n int) *pendingDoc {
	p, ok := o.pending[n]
	if !ok {
		p = &pendingDoc{}
		o.pending[n] = p
	}
	return p
}

// emitSegment passes a segment of job n, the next job, on; false means the
// sink failed.
func (o *inOrder) emitSegment(n int, segment []byte) bool {
	if err := o.emit(n, segment); err != nil {
		o.failedAt, o.err = n, err
		return false
	}
	return true
}

// fail records that job n failed with err; the earliest failure wins.
func (o *inOrder) fail(n int, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil || n < o.failedAt {
		o.failedAt, o.err = n, err
	}
}
