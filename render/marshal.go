package render

// Printing many resources as protojson, on every CPU.

import (
	"runtime"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/proto"
)

// marshalSections prints every resource of every section as protojson laid
// out at elementPrefix, keeping section and item order. protojson is driven
// by reflection and takes most of the time for thousands of resources, and
// resources are independent, so they are shared out among GOMAXPROCS
// workers. If any fails, the error is that of the first failing resource in
// output order, so it is the same on every run.
func marshalSections(sections []typeSection) ([][][]byte, error) {
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
	enc := &jsonEncoder{}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Go(func() {
			var scratch []byte // protojson's output, reused between resources
			for {
				n := int(next.Add(1)) - 1
				if n >= len(jobs) {
					return
				}
				jb := jobs[n]
				s := sections[jb.section]
				var doc []byte
				doc, scratch, errs[n] = enc.indented(s.items[jb.item], scratch)
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

// indented prints m as compact JSON into scratch and returns it laid out at
// elementPrefix in a new slice, and scratch for reuse.
func (e *jsonEncoder) indented(m proto.Message, scratch []byte) (doc, _ []byte, err error) {
	raw, err := e.marshal(scratch[:0], m)
	if err != nil {
		return nil, scratch, err
	}
	// Indentation roughly doubles compact JSON.
	return appendIndented(make([]byte, 0, 2*len(raw)), raw, elementPrefix), raw, nil
}
