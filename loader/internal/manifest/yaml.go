package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"sync"
	"unsafe"

	"go.yaml.in/yaml/v3"

	"github.com/contourc/contourc/loader/internal/fastyaml"
)

// Document is one YAML (or JSON) document of an input.
type Document struct {
	Index int        // 0-based position in the file
	Root  *yaml.Node // the document's value; nil for an empty document
}

// Chunk is the text of one YAML document of a stream.
type Chunk struct {
	Text  []byte
	src   string // text as a string when the caller has one (see viewChunks), else ""
	Line  int    // line of the chunk's first byte in the file
	Index int    // document index in the file
}

// SplitYAMLStream cuts a YAML stream into its documents' text, at the
// lines that are document markers ("---" or "..." at the start of a line).
// YAML forbids those lines anywhere else, even inside block scalars and
// quoted strings, so each piece parses on its own: large files of many
// objects are parsed in parallel. Text with no content (comments,
// directives, empty documents) is kept with the next piece rather than
// counted as a document of its own.
func SplitYAMLStream(data []byte) []Chunk {
	var chunks []Chunk
	start, startLine, line := 0, 1, 1
	cut := func(end int, nextLine int) {
		if text := data[start:end]; hasContent(text) {
			chunks = append(chunks, Chunk{Text: text, Line: startLine, Index: len(chunks)})
			start, startLine = end, nextLine
		}
	}
	for off := 0; off < len(data); {
		next := len(data)
		if eol := bytes.IndexByte(data[off:], '\n'); eol >= 0 {
			next = off + eol + 1
		}
		switch l := data[off:next]; {
		case isMarker(l, "---"):
			cut(off, line) // the marker starts the next document
		case isMarker(l, "..."):
			cut(next, line+1) // the marker ends this document
		}
		off = next
		line++
	}
	if start < len(data) {
		chunks = append(chunks, Chunk{Text: data[start:], Line: startLine, Index: len(chunks)})
	}
	return chunks
}

// ViewChunks sets the src of each chunk splitYAMLStream cut from data to
// its text viewed as a string, without a copy: for a caller that owns data
// and never writes it again. Values parsed from a chunk are substrings of
// the view and so keep all of data alive, where a copy kept the chunk's
// text: fine for a load whose objects all live as long, not for a decode
// cache that keeps some of a file's objects from load to load. Copying
// every chunk was 14 of the 105 MB loading 5,000 HTTPProxies allocated.
func ViewChunks(chunks []Chunk, data []byte) {
	if len(data) == 0 {
		return
	}
	view := unsafe.String(unsafe.SliceData(data), len(data))
	for i := range chunks {
		c := &chunks[i]
		start := cap(data) - cap(c.Text) // c.text is data[start:end]
		c.src = view[start : start+len(c.Text)]
	}
}

// isMarker reports whether line is the document marker m, alone or
// followed by a space (as in "--- |" or "--- # comment").
func isMarker(line []byte, m string) bool {
	if !bytes.HasPrefix(line, []byte(m)) {
		return false
	}
	rest := line[len(m):]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n'
}

// hasContent reports whether YAML text holds more than blank lines,
// comments, directives and document markers.
func hasContent(text []byte) bool {
	for l := range bytes.Lines(text) {
		l = bytes.TrimSuffix(l, []byte("\n"))
		switch {
		case bytes.HasPrefix(l, []byte("%")):
			continue
		case isMarker(l, "---") || isMarker(l, "..."):
			l = l[3:] // "--- |" and "--- {a: 1}" start a document's content
		}
		if l = bytes.TrimSpace(l); len(l) > 0 && l[0] != '#' {
			return true
		}
	}
	return false
}

// ParseYAMLChunk parses one document's text. It keeps yaml.Node trees
// rather than decoding to Go values because the nodes carry the line of
// every key and value, which is what makes errors point at the right line.
//
// With an arena, the trees are built in its memory and are valid until the
// arena is released; a nil arena allocates them.
func ParseYAMLChunk(name string, c Chunk, lim Limits, arena *fastyaml.Arena) (docs []Document, err error) {
	defer func() {
		// The parser is not expected to panic, but a manifest must never
		// take the whole program down.
		if r := recover(); r != nil {
			docs, err = nil, &Error{Source: Source{File: name, Line: c.Line, Doc: c.Index}, Msg: fmt.Sprintf("YAML parser failed: %v", r)}
		}
	}()
	next := fastyaml.Documents(c.Text, c.src, arena) // internal/fastyaml, falling back to yaml.v3
	for {
		n, err := next()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, yamlSyntaxError(name, c, err)
		}
		shiftLines(n, c.Line-1)
		root := documentRoot(n)
		if root == nil {
			continue
		}
		if err := CheckBounds(root, lim); err != nil {
			return nil, &Error{Source: Source{File: name, Line: err.line, Doc: c.Index}, Msg: err.Msg}
		}
		docs = append(docs, Document{Index: c.Index, Root: root})
	}
}

// shiftLines moves the lines of a chunk's nodes to their lines in the file.
// Aliases are not followed: every node is in the tree once.
func shiftLines(n *yaml.Node, by int) {
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

// documentRoot is the value of a document node, or nil when the document
// has nothing in it (only comments, `---`, or an explicit null).
func documentRoot(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	if IsNull(n) {
		return nil
	}
	return n
}

// yamlErrorLine picks the line number out of the parser's messages, which
// look like "yaml: line 12: did not find expected key".
var yamlErrorLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// yamlSyntaxError turns a parser error into an *Error at its line.
func yamlSyntaxError(name string, c Chunk, err error) *Error {
	msg := err.Error()
	line := c.Line
	if m := yamlErrorLine().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		line, msg = c.Line-1+n, m[2]
	} else if len(msg) > 6 && msg[:6] == "yaml: " {
		msg = msg[6:]
	}
	return &Error{Source: Source{File: name, Line: line, Doc: c.Index}, Msg: "invalid YAML: " + msg}
}

// IsNull reports whether n is a null scalar (`null`, `~`, or nothing).
func IsNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// ResolveAlias follows alias nodes to the node they name.
func ResolveAlias(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// MapValue is the value of key in mapping n, or nil.
func MapValue(n *yaml.Node, key string) *yaml.Node {
	n = ResolveAlias(n)
	if n.Kind != yaml.MappingNode {
		return nil
	}
	pairs := MappingPairs(n)
	for i := 0; i+1 < len(pairs); i += 2 {
		if k := ResolveAlias(pairs[i]); k.Kind == yaml.ScalarNode && k.Value == key {
			return ResolveAlias(pairs[i+1])
		}
	}
	return nil
}
