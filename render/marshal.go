package render

// Printing many resources as JSON, on every CPU.

import (
	"errors"
	"slices"
	"sync"

	"github.com/contourc/contourc/translate"
)

// document is one printed resource, in segments written one after the
// other: a resource with a long list keeps the list's pieces as they were
// printed (see jsonEncoder.segments); others are one segment.
type document [][]byte

// printValidSections prints every resource of every section as JSON laid
// out at elementPrefix and hands each to sink in section and item order,
// checking each as Validate does. If one breaks the rules it returns
// Validate's error, and sink gets no resource from that one on.
func printValidSections(r *translate.Resources, sections []typeSection, sink func(section, item int, doc document) error) error {
	e := indentedEncoder(elementPrefix)
	e.validate = true
	err := e.printAll(sections, true, sink)
	var invalid *invalidError
	if errors.As(err, &invalid) {
		// The encoder stops at the first problem; Validate's error
		// names each invalid resource and where in it the problem is.
		if verr := Validate(r); verr != nil {
			return verr
		}
	}
	return err
}

// marshalAll prints every resource of every section in e's layout and
// returns them all (see printAll).
func (e *jsonEncoder) marshalAll(sections []typeSection, segmented bool) ([][]document, error) {
	docs := newDocTable(sections)
	if err := e.printAll(sections, segmented, docs.keep); err != nil {
		return nil, err
	}
	return docs, nil
}

// docTable holds the printed documents of sections, one list per section.
type docTable [][]document

func newDocTable(sections []typeSection) docTable {
	docs := make(docTable, len(sections))
	for i, s := range sections {
		docs[i] = make([]document, len(s.items))
	}
	return docs
}

// keep is a sink for printAll that keeps every document.
func (d docTable) keep(section, item int, doc document) error {
	d[section][item] = doc
	return nil
}

// bigDocument is the size from which a printed resource keeps the buffer
// it was printed in rather than a copy of it.
const bigDocument = 1 << 20

// printAll prints every resource of every section in e's layout, as
// documents of one segment unless segmented, and hands them to sink in
// section and item order, each as soon as it and those before it are
// printed; sink may keep them. Resources are independent, so they are
// shared out among the CPUs. If any fails, or sink does, sink gets nothing
// from that resource on and the error is that of the first failure in
// output order, so it is the same on every run.
func (e *jsonEncoder) printAll(sections []typeSection, segmented bool, sink func(section, item int, doc document) error) error {
	type job struct{ section, item int }
	var jobs []job
	for i, s := range sections {
		for j := range s.items {
			jobs = append(jobs, job{i, j})
		}
	}
	out := newInOrder(func(n int, doc document) error {
		return sink(jobs[n].section, jobs[n].item, doc)
	})
	forEachJob(len(jobs), func() func(int) {
		var scratch []byte // reused between resources, so a document is allocated once, at its size
		return func(n int) {
			if !out.mayStart(n) {
				return // it would not be passed on
			}
			jb := jobs[n]
			s := sections[jb.section]
			pe := e
			var segments [][]byte
			if segmented {
				one := *e // the encoder of this one resource
				one.segments = &segments
				pe = &one
			}
			printed, err := pe.marshal(scratch[:0], s.items[jb.item])
			if err != nil {
				out.fail(n, &ResourceError{Kind: s.kind, Name: s.names[jb.item], Err: err})
				return
			}
			var doc document
			switch {
			case len(segments) > 0:
				// The segments own scratch's array now.
				doc, scratch = append(segments, printed), nil
			case len(printed) >= bigDocument:
				// A copy would cost as much memory again; the
				// next resource starts a buffer of its own.
				doc, scratch = document{printed}, nil
			default:
				doc, scratch = document{slices.Clone(printed)}, printed
			}
			out.done(n, doc)
		}
	})
	return out.err
}

// inOrder passes documents printed in any order on, in job order. Only the
// documents printed ahead of the next one wait in memory.
type inOrder struct {
	mu      sync.Mutex
	next    int // the job to pass on next
	pending map[int]document
	emit    func(n int, doc document) error
	// failedAt is the first job that failed, and err its error; nothing
	// from it on is passed on.
	failedAt int
	err      error
}

func newInOrder(emit func(n int, doc document) error) *inOrder {
	return &inOrder{pending: map[int]document{}, emit: emit}
}

// mayStart says whether job n is still worth printing: not when a job
// before it failed.
func (o *inOrder) mayStart(n int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err == nil || n < o.failedAt
}

func (o *inOrder) done(n int, doc document) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pending[n] = doc
	for o.err == nil || o.next < o.failedAt {
		d, ok := o.pending[o.next]
		if !ok {
			return
		}
		delete(o.pending, o.next)
		if err := o.emit(o.next, d); err != nil {
			o.failedAt, o.err = o.next, err
			return
		}
		o.next++
	}
}

// fail records that job n failed with err; the earliest failure wins.
func (o *inOrder) fail(n int, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil || n < o.failedAt {
		o.failedAt, o.err = n, err
	}
}
