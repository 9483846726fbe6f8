package render

// Printing many resources as JSON, on every CPU.

import (
	"errors"
	"slices"

	"github.com/contourc/contourc/translate"
)

// document is one printed resource, in segments written one after the
// other: a resource with a long list keeps the list's pieces as they were
// printed (see jsonEncoder.segments); others are one segment.
type document [][]byte

// marshalValidSections prints every resource of every section as JSON laid
// out at elementPrefix, keeping section and item order, and checks each as
// Validate does, returning Validate's error if one breaks the rules.
func marshalValidSections(r *translate.Resources, sections []typeSection) ([][]document, error) {
	e := indentedEncoder(elementPrefix)
	e.validate = true
	docs, err := e.marshalAll(sections, true)
	var invalid *invalidError
	if errors.As(err, &invalid) {
		// The encoder stops at the first problem; Validate's error
		// names each invalid resource and where in it the problem is.
		if verr := Validate(r); verr != nil {
			return nil, verr
		}
	}
	return docs, err
}

// bigDocument is the size from which a printed resource keeps the buffer
// it was printed in rather than a copy of it.
const bigDocument = 1 << 20

// marshalAll prints every resource of every section in e's layout, as
// documents of one segment unless segmented. Resources are independent, so
// they are shared out among the CPUs. If any fails, the error is that of
// the first failing resource in output order, so it is the same on every
// run.
func (e *jsonEncoder) marshalAll(sections []typeSection, segmented bool) ([][]document, error) {
	type job struct{ section, item int }
	var jobs []job
	docs := make([][]document, len(sections))
	for i, s := range sections {
		docs[i] = make([]document, len(s.items))
		for j := range s.items {
			jobs = append(jobs, job{i, j})
		}
	}
	errs := make([]error, len(jobs))
	forEachJob(len(jobs), func() func(int) {
		var scratch []byte // reused between resources, so a document is allocated once, at its size
		return func(n int) {
			jb := jobs[n]
			s := sections[jb.section]
			pe := e
			var segments [][]byte
			if segmented {
				one := *e // the encoder of this one resource
				one.segments = &segments
				pe = &one
			}
			out, err := pe.marshal(scratch[:0], s.items[jb.item])
			if err != nil {
				errs[n] = &ResourceError{Kind: s.kind, Name: s.names[jb.item], Err: err}
				return
			}
			switch {
			case len(segments) > 0:
				// The segments own scratch's array now.
				docs[jb.section][jb.item], scratch = append(segments, out), nil
			case len(out) >= bigDocument:
				// A copy would cost as much memory again; the
				// next resource starts a buffer of its own.
				docs[jb.section][jb.item], scratch = document{out}, nil
			default:
				docs[jb.section][jb.item], scratch = document{slices.Clone(out)}, out
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return docs, nil
}
