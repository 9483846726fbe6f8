package render

// Printing many resources as JSON, on every CPU.

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/proto"
)

// marshalSections prints every resource of every section as JSON laid out
// at elementPrefix, keeping section and item order.
func marshalSections(sections []typeSection) ([][][]byte, error) {
	return (&jsonEncoder{}).marshalAll(sections, true)
}

// marshalAll prints every resource of every section, laid out at
// elementPrefix when indent is set and compact otherwise. Resources are
// independent, so they are shared out among GOMAXPROCS workers. If any
// fails, the error is that of the first failing resource in output order,
// so it is the same on every run.
func (e *jsonEncoder) marshalAll(sections []typeSection, indent bool) ([][][]byte, error) {
	type job struct{ section, item int }
	var jobs []job
	docs := make([][][]byte, len(sections))
	for i, s := range sections {
		docs[i] = make([][]byte, len(s.items))
		for j := range s.items {
			jobs = append(jobs, job{i, j})
		}
	}
	errs := make([]error, len(jobs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Go(func() {
			var scratch []byte // compact output, reused between resources
			for {
				n := int(next.Add(1)) - 1
				if n >= len(jobs) {
					return
				}
				jb := jobs[n]
				s := sections[jb.section]
				var doc []byte
				doc, scratch, errs[n] = e.print(s.items[jb.item], scratch, indent)
				if errs[n] != nil {
					errs[n] = &ResourceError{Kind: s.kind, Name: s.names[jb.item], Err: errs[n]}
				}
				docs[jb.section][jb.item] = doc
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return docs, nil
}

// print prints m as compact JSON into scratch and returns it in a new
// slice, laid out at elementPrefix if indent is set, and scratch for reuse.
func (e *jsonEncoder) print(m proto.Message, scratch []byte, indent bool) (doc, _ []byte, err error) {
	raw, err := e.marshal(scratch[:0], m)
	if err != nil {
		return nil, scratch, err
	}
	if !indent {
		return slices.Clone(raw), raw, nil
	}
	// Indentation roughly doubles compact JSON.
	return appendIndented(make([]byte, 0, 2*len(raw)), raw, elementPrefix), raw, nil
}
