// Package fastyaml is a fast parser for the YAML that Kubernetes manifests
// are made of.
//
// Parsing manifests into yaml.Node trees with go.yaml.in/yaml/v3 dominates
// the loader's CPU time: its scanner is a general libyaml port that handles
// every corner of YAML one character (and one allocation) at a time. Real
// manifests use a small part of the language: block mappings and sequences,
// single-line scalars, one-line flow collections, literal and folded block
// scalars, comments. Parse parses exactly that subset and builds the
// very trees yaml.v3 would build (same Kind, Style, Tag, Value, Line, Column
// and Content; comments are left out because nothing in the loader reads
// them).
//
// The rule that keeps it safe: whenever the text steps outside the subset,
// or anything is not exactly as expected, Parse gives up on the
// whole chunk and the caller parses it with yaml.v3. So yaml.v3 remains the
// only judge of what is valid YAML and the only source of syntax errors; the
// fast parser only ever accepts text that yaml.v3 accepts too, with the same
// result. The tests check that differentially (fastyamltest holds the
// yaml.v3 side): here by fuzzing and on generated text, in the loader on
// the corpus, chunk by chunk as it parses.
//
// Names below that mention yaml.v3's scanner (indent, simple keys, ...)
// refer to go.yaml.in/yaml/v3's scannerc.go and parserc.go, whose behaviour
// this package reproduces for the subset.
package fastyaml

import (
	"bytes"
	"io"

	"go.yaml.in/yaml/v3"
)

// Documents returns an iterator over the documents of a chunk's text:
// the fast parser's when it accepts the text, yaml.v3's otherwise. Like
// yaml.v3's Decoder, the iterator returns io.EOF after the last document.
//
// src is text as a string, whose substrings the nodes' values are; ""
// makes a copy.
func Documents(text []byte, src string, arena *Arena) func() (*yaml.Node, error) {
	if docs, ok := Parse(text, src, arena); ok {
		return func() (*yaml.Node, error) {
			if len(docs) == 0 {
				return nil, io.EOF
			}
			n := docs[0]
			docs = docs[1:]
			return n, nil
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(text))
	return func() (*yaml.Node, error) {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			return nil, err
		}
		return &n, nil
	}
}

// Limits beyond which the fast parser leaves the text to yaml.v3, well
// inside yaml.v3's own: an implicit key must end within 1024 characters of
// its start, and yaml.v3 refuses more than 10000 levels of nesting.
const (
	fastYAMLMaxKeyLen = 1000
	fastYAMLMaxDepth  = 1000
)

// fastYAMLBail is the panic value with which the parser gives up on a
// chunk. Bailing out by panicking keeps every parsing function free of
// error plumbing for what is, on real manifests, the rare case.
type fastYAMLBail struct{}

// Strict makes Parse re-panic on panics other than its own
// bail-outs, so that tests see bugs that production would quietly hide
// behind the fallback to yaml.v3.
var Strict = false

// Parse parses text into the document nodes yaml.v3's Decoder
// returns for it, one per Decode call. ok is false when the text is outside
// the subset the parser knows; the text must then be parsed by yaml.v3.
// src is text as a string when the caller has one ("" makes a copy):
// scalars without escapes are substrings of it, so most nodes cost no
// string allocation.
func Parse(text []byte, src string, arena *Arena) (docs []*yaml.Node, ok bool) {
	lines, nonASCII, scannable := fastYAMLPrescan(text)
	if !scannable {
		return nil, false
	}
	defer func() {
		if r := recover(); r != nil {
			if _, bail := r.(fastYAMLBail); !bail && Strict {
				panic(r)
			}
			docs, ok = nil, false
		}
	}()
	if src == "" {
		src = string(text)
	}
	p := fastYAML{
		src:      src,
		nonASCII: nonASCII,
		indent:   -1,
		// Sized to what the chunk needs (see estimateNodes); the cap keeps
		// a long block scalar from sizing a slab it will not fill.
		slabSize: min(estimateNodes(text, lines), 1024),
		ptrsSize: min(estimateNodes(text, lines), 1024),
		stack:    arena.stack(),
		arena:    arena,
	}
	docs = p.stream()
	arena.keepStack(p.stack)
	return docs, true
}
