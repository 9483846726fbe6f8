package render

// Printing many resources as JSON, on every CPU.

import (
	"slices"

	"google.golang.org/protobuf/proto"
)

// marshalSections prints every resource of every section as JSON laid out
// at elementPrefix, keeping section and item order.
func marshalSections(sections []typeSection) ([][][]byte, error) {
	return (&jsonEncoder{}).marshalAll(sections, true)
}

// marshalAll prints every resource of every section, laid out at
// elementPrefix when indent is set and compact otherwise. Resources are
// independent, so they are shared out among the CPUs. If any
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
	forEachJob(len(jobs), func() func(int) {
		var scratch []byte // compact output, reused between resources
		return func(n int) {
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
