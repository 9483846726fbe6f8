package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// StartsLikeJSON reports whether an input looks like JSON: a stream of
// objects, as `kubectl get -o json` prints. JSON is mostly valid YAML, but
// not several concatenated objects, and not every escape or tab that JSON
// allows, so JSON gets its own reader.
func StartsLikeJSON(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	return len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[')
}

// IsJSONName reports whether a file's name says it holds JSON.
func IsJSONName(name string) bool {
	return strings.HasSuffix(strings.ToLower(name), ".json")
}

// ParseJSON reads a stream of JSON values into the same yaml.Node trees the
// YAML reader produces, with the line of every key and value, so that
// everything downstream is shared.
func ParseJSON(name string, data []byte, lim Limits) ([]Document, error) {
	b := jsonBuilder{
		data:  data,
		dec:   json.NewDecoder(bytes.NewReader(data)),
		lines: newLineIndex(data),
		lim:   lim,
	}
	b.dec.UseNumber()
	var docs []Document
	for i := 0; ; i++ {
		b.docStart = int(b.dec.InputOffset())
		tok, err := b.dec.Token()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		var root *yaml.Node
		if err == nil {
			root, err = b.value(tok, 1)
		}
		if err != nil {
			return nil, b.syntaxError(name, i, err)
		}
		if !IsNull(root) {
			docs = append(docs, Document{Index: i, Root: root})
		}
	}
}

type jsonBuilder struct {
	data     []byte
	docStart int // offset where the current document starts
	dec      *json.Decoder
	lines    lineIndex
	lim      Limits
}

// line is the line of the token the decoder has just returned.
func (b *jsonBuilder) line() int {
	return b.lines.line(int(b.dec.InputOffset()) - 1)
}

// value builds the node for tok and, for '{' and '[', everything up to the
// matching close.
func (b *jsonBuilder) value(tok json.Token, depth int) (*yaml.Node, error) {
	if depth > b.lim.depth {
		return nil, fmt.Errorf("nested more than %d levels deep", b.lim.depth)
	}
	line := b.line()
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return b.object(line, depth)
		}
		return b.array(line, depth)
	case string:
		return jsonScalar("!!str", t, line), nil
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(string(t), ".eE") {
			tag = "!!float"
		}
		return jsonScalar(tag, string(t), line), nil
	case bool:
		return jsonScalar("!!bool", fmt.Sprint(t), line), nil
	case nil:
		return jsonScalar("!!null", "null", line), nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

func (b *jsonBuilder) object(line, depth int) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line, Style: yaml.FlowStyle}
	for b.dec.More() {
		keyTok, err := b.dec.Token()
		if err != nil {
			return nil, err
		}
		key := jsonScalar("!!str", fmt.Sprint(keyTok), b.line())
		valTok, err := b.dec.Token()
		if err != nil {
			return nil, err
		}
		val, err := b.value(valTok, depth+1)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, key, val)
	}
	_, err := b.dec.Token() // '}'
	return n, err
}

func (b *jsonBuilder) array(line, depth int) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line, Style: yaml.FlowStyle}
	for b.dec.More() {
		tok, err := b.dec.Token()
		if err != nil {
			return nil, err
		}
		val, err := b.value(tok, depth+1)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, val)
	}
	_, err := b.dec.Token() // ']'
	return n, err
}

func jsonScalar(tag, value string, line int) *yaml.Node {
	style := yaml.Style(0)
	if tag == "!!str" {
		style = yaml.DoubleQuotedStyle
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value, Line: line, Style: style}
}

// syntaxError places a JSON error at its line. The token reader's offsets
// are only approximate, so the document is re-read whole to find the exact
// place.
func (b *jsonBuilder) syntaxError(name string, doc int, err error) *Error {
	off := int(b.dec.InputOffset())
	var se *json.SyntaxError
	if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) {
		var raw json.RawMessage
		if errors.As(json.Unmarshal(b.data[b.docStart:], &raw), &se) {
			// Offset counts the bytes read, the last one being wrong.
			off = b.docStart + max(int(se.Offset)-1, 0)
			err = se
		}
	}
	msg := err.Error()
	if errors.Is(err, io.ErrUnexpectedEOF) || strings.HasPrefix(msg, "unexpected end of JSON input") {
		msg = "unexpected end of input (truncated file?)"
	}
	return &Error{Source: Source{File: name, Line: b.lines.line(off), Doc: doc}, Msg: "invalid JSON: " + msg}
}

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []int // offsets of each '\n'

func newLineIndex(data []byte) lineIndex {
	var idx lineIndex
	for i, c := range data {
		if c == '\n' {
			idx = append(idx, i)
		}
	}
	return idx
}

func (idx lineIndex) line(off int) int {
	return sort.SearchInts(idx, off) + 1
}
