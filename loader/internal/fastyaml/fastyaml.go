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
	"encoding/binary"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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

// Tags yaml.v3 gives the nodes the fast parser builds.
const (
	tagStr       = "!!str"
	tagNull      = "!!null"
	tagBool      = "!!bool"
	tagInt       = "!!int"
	tagFloat     = "!!float"
	tagTimestamp = "!!timestamp"
	tagMerge     = "!!merge"
	tagSeq       = "!!seq"
	tagMap       = "!!map"
)

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

// estimateNodes is about how many nodes a chunk of lines lines parses to.
// A manifest's nodes are its keys and their values, two per ':', and a
// mapping per sequence item, one per "- ": for 20,000 generated documents
// of 1.18 million nodes that sizes slabs of 1.28 million. Sizing by lines
// instead (a little over two nodes a line, so as not to spill into a
// second slab) allocated 1.49 million, zeroed and scanned for nothing. A colon inside a value overcounts, so the count is capped by the
// lines; a chunk that needs more gets a further, smaller slab.
func estimateNodes(text []byte, lines int) int {
	byLines := 9*lines/4 + 16
	return min(2*bytes.Count(text, []byte{':'})+bytes.Count(text, []byte("- "))+8, byLines)
}

// fastYAMLPrescan checks that text holds only characters that yaml.v3
// reads as themselves and that the parser can count columns with: no
// control characters but tab and LF (so no CR, which normalizeText turns
// into LF anyway, and no NUL, which lets 0 stand for the end of the text),
// and only valid, printable UTF-8 that is not one of YAML's Unicode line
// breaks or a byte order mark. It also counts lines, to size node slabs.
func fastYAMLPrescan(text []byte) (lines int, nonASCII, ok bool) {
	for i := 0; i < len(text); {
		// Eight bytes at a time while they are printable ASCII: most of
		// a manifest, and all of a Secret's base64; a byte at a time was
		// 27 ms of CPU loading 5,000 HTTPProxies.
		if i+8 <= len(text) && printableASCIIWord(binary.LittleEndian.Uint64(text[i:])) {
			i += 8
			continue
		}
		// Then the next eight (or more, when a character crosses
		// them) one at a time.
		for end := min(i+8, len(text)); i < end; {
			switch asciiClass[text[i]] {
			case asciiPlain:
				i++
			case asciiControl:
				return 0, false, false
			default:
				r, size := utf8.DecodeRune(text[i:])
				if !printableNonASCII(r, size) {
					return 0, false, false
				}
				nonASCII = true
				i += size
			}
		}
	}
	return bytes.Count(text, []byte{'\n'}) + 1, nonASCII, true
}

// printableASCIIWord reports whether all eight bytes of w are printable
// ASCII (0x20 to 0x7e).
func printableASCIIWord(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	// A byte below n has its high bit set by subtracting n from it, and
	// had it clear before (n <= 0x80; exact for the word as a whole).
	below := func(x uint64, n uint64) uint64 { return (x - ones*n) &^ x & highs }
	return w&highs == 0 && below(w, 0x20) == 0 && below(w^(ones*0x7f), 1) == 0
}

// Classes of bytes for fastYAMLPrescan.
const (
	asciiPlain   = iota // printable ASCII, tab, LF
	asciiControl        // other control characters and DEL
	asciiNot            // the start or continuation of a multi-byte character
)

var asciiClass = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c >= 0x80:
			t[c] = asciiNot
		case c < 0x20 && c != '\t' && c != '\n', c == 0x7f:
			t[c] = asciiControl
		}
	}
	return t
}()

// printableNonASCII reports whether the decoded rune r is a character
// yaml.v3 accepts in its input and treats as an ordinary character.
func printableNonASCII(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size <= 1:
		return false // invalid UTF-8
	case r == 0x85, r == 0x2028, r == 0x2029:
		return false // line breaks in YAML
	case r == 0xFEFF:
		return false // byte order mark
	}
	return r >= 0xA0 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// fastYAML is the state of one parse.
type fastYAML struct {
	src       string // the chunk's text
	pos       int    // offset of the next byte to look at
	line      int    // 0-based line of pos
	lineStart int    // offset of the first byte of that line
	indent    int    // yaml.v3 scanner's indent: column of the innermost block collection
	depth     int    // nesting of collections, bounded by fastYAMLMaxDepth

	// With multi-byte characters in src, columns count runes; the last one
	// computed is remembered.
	nonASCII                  bool
	colLineStart, colPos, col int

	slab     []yaml.Node  // nodes are allocated from here, slabSize at a time
	slabSize int          // nodes in the next slab
	ptrsSize int          // pointers in the next array of Content pointers
	ptrs     []*yaml.Node // Content slices are carved from here
	stack    []*yaml.Node // children of the collections being parsed
	buf      []byte       // scratch for block scalars and escapes
	arena    *Arena       // where slabs and pointer arrays come from (arena.go)
}

// bail gives up on the chunk: yaml.v3 will parse it.
func (p *fastYAML) bail() {
	panic(fastYAMLBail{})
}

// at is the byte at offset i, or 0 past the end of the text (the prescan
// guarantees there are no NUL bytes in it).
func (p *fastYAML) at(i int) byte {
	if i < len(p.src) {
		return p.src[i]
	}
	return 0
}

// isBlankz reports whether c ends a token the way yaml.v3's is_blankz does:
// space, tab, line break or end of text.
func isBlankz(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == 0
}

// column is the 0-based column of offset i on the current line, counted in
// characters as yaml.v3 counts them.
func (p *fastYAML) column(i int) int {
	if !p.nonASCII {
		return i - p.lineStart
	}
	// Count from the offset last asked about on this line: columns are
	// mostly asked for from left to right, so that a long line is not
	// counted over and over.
	if p.colLineStart != p.lineStart || i < p.colPos {
		p.colLineStart, p.colPos, p.col = p.lineStart, p.lineStart, 0
	}
	p.col += utf8.RuneCountInString(p.src[p.colPos:i])
	p.colPos = i
	return p.col
}

// newNode allocates a node at the 0-based line and column.
func (p *fastYAML) newNode(kind yaml.Kind, tag string, line, col int) *yaml.Node {
	if len(p.slab) == cap(p.slab) {
		p.slab = p.arena.nodes(p.slabSize)
		// The first slab was sized for the whole text; a text that
		// needs more is topped up in smaller steps.
		p.slabSize = max(p.slabSize/4, 16)
	}
	p.slab = p.slab[:len(p.slab)+1]
	n := &p.slab[len(p.slab)-1]
	// Whole, so that a node reused from an arena keeps nothing of before.
	*n = yaml.Node{Kind: kind, Tag: tag, Line: line + 1, Column: col + 1}
	return n
}

// emptyScalar is the null node yaml.v3 puts where a value is missing, at
// the mark its parser gives it.
func (p *fastYAML) emptyScalar(line, col int) *yaml.Node {
	return p.newNode(yaml.ScalarNode, tagNull, line, col)
}

// content turns the children pushed on the stack since mark into a
// collection's Content. The slice is carved from a shared array but capped,
// so appending to it never overwrites a neighbour.
func (p *fastYAML) content(mark int) []*yaml.Node {
	items := p.stack[mark:]
	n := len(items)
	if n == 0 {
		return nil
	}
	if cap(p.ptrs)-len(p.ptrs) < n {
		p.ptrs = p.arena.pointers(n, max(n, p.ptrsSize))
		p.ptrsSize = max(p.ptrsSize/4, 16)
	}
	start := len(p.ptrs)
	p.ptrs = append(p.ptrs, items...)
	p.stack = p.stack[:mark]
	return p.ptrs[start : start+n : start+n]
}

// enter and leave bound the nesting of collections.
func (p *fastYAML) enter() {
	if p.depth++; p.depth > fastYAMLMaxDepth {
		p.bail()
	}
}

func (p *fastYAML) leave() { p.depth-- }

// ---------------------------------------------------------------------------
// Lines.

// newLine records that offset i starts a new line.
func (p *fastYAML) newLine(i int) {
	p.line++
	p.lineStart = i
}

// skipSpaces moves past spaces (not tabs: where yaml.v3 allows tabs depends
// on context, so the parser leaves any tab to it).
func (p *fastYAML) skipSpaces() {
	for p.at(p.pos) == ' ' {
		p.pos++
	}
}

// atLineEnd reports whether only spaces and maybe a comment are left on the
// current line from p.pos.
func (p *fastYAML) atLineEnd() bool {
	i := p.pos
	for p.at(i) == ' ' {
		i++
	}
	switch p.at(i) {
	case '\n', 0:
		return true
	case '#':
		// A comment must be separated from what precedes it.
		return i > p.lineStart && p.at(i-1) == ' '
	}
	return false
}

// endLine moves past the rest of the current line, which must hold nothing
// but spaces and maybe a comment, to the start of the next.
func (p *fastYAML) endLine() {
	if !p.atLineEnd() {
		p.bail()
	}
	eol := strings.IndexByte(p.src[p.pos:], '\n')
	if eol < 0 {
		p.pos = len(p.src)
		return
	}
	p.pos += eol + 1
	p.newLine(p.pos)
}

// peekContent moves from the start of a line to the start of the next line
// that holds a token, past blank lines and comment lines, and returns its
// indentation. It returns -1 at the end of the text and at a document
// marker line, which end every block collection.
func (p *fastYAML) peekContent() int {
	for {
		i := p.pos
		for p.at(i) == ' ' {
			i++
		}
		switch p.at(i) {
		case 0:
			p.pos = len(p.src)
			return -1
		case '\t':
			// yaml.v3 refuses tabs in indentation, and in blank lines in some
			// contexts: not worth modelling.
			p.bail()
		case '\n', '#':
			eol := strings.IndexByte(p.src[i:], '\n')
			if eol < 0 {
				p.pos = len(p.src)
				return -1
			}
			p.pos = i + eol + 1
			p.newLine(p.pos)
			continue
		}
		if i == p.pos && p.isMarker(i) != 0 {
			return -1
		}
		return i - p.pos
	}
}

// isMarker returns '-' or '.' when offset i starts a document marker
// ("---" or "..." at the start of a line followed by a blank), 0 otherwise.
func (p *fastYAML) isMarker(i int) byte {
	c := p.at(i)
	if i != p.lineStart || (c != '-' && c != '.') {
		return 0
	}
	if p.at(i+1) == c && p.at(i+2) == c && isBlankz(p.at(i+3)) {
		return c
	}
	return 0
}

// isSeqEntry reports whether offset i holds a block sequence entry
// indicator: '-' followed by a blank or the end of the line.
func (p *fastYAML) isSeqEntry(i int) bool {
	return p.at(i) == '-' && isBlankz(p.at(i+1))
}

// eofMark is the 0-based line of yaml.v3's stream end mark: the line after
// the last, unless the text ends with a line break.
func (p *fastYAML) eofMark() int {
	n := strings.Count(p.src, "\n")
	if len(p.src) > 0 && p.src[len(p.src)-1] != '\n' {
		n++
	}
	return n
}

// ---------------------------------------------------------------------------
// Documents.

// stream parses the documents of the text. The first may be implicit (no
// "---"); every later one must start with "---", as in yaml.v3. Extra
// "..." markers after a document are skipped.
func (p *fastYAML) stream() []*yaml.Node {
	var docs []*yaml.Node
	for {
		ind := p.peekContent()
		switch {
		case p.pos >= len(p.src):
			return docs
		case ind >= 0:
			if len(docs) > 0 {
				p.bail() // content after a document: yaml.v3 wants "---"
			}
			p.pos += ind
			root := p.blockNode(true)
			docs = append(docs, p.document(root.Line-1, root.Column-1, root))
		case p.isMarker(p.pos) == '-':
			docs = append(docs, p.explicitDocument())
		default: // "..."
			if len(docs) == 0 {
				p.bail() // yaml.v3 takes a leading "..." for content
			}
			p.pos += 3
			p.endLine()
		}
	}
}

// explicitDocument parses a document that starts with "---" at p.pos.
func (p *fastYAML) explicitDocument() *yaml.Node {
	line := p.line
	p.pos += 3
	p.endLine() // content on the marker's line ("--- |") is left to yaml.v3
	var root *yaml.Node
	switch ind := p.peekContent(); {
	case ind >= 0:
		p.pos += ind
		root = p.blockNode(true)
	case p.pos >= len(p.src):
		root = p.emptyScalar(p.eofMark(), 0)
	default: // an empty document ended by the next marker
		root = p.emptyScalar(p.line, 0)
	}
	return p.document(line, 0, root)
}

// document wraps a root node in a document node at the given mark.
func (p *fastYAML) document(line, col int, root *yaml.Node) *yaml.Node {
	d := p.newNode(yaml.DocumentNode, "", line, col)
	mark := len(p.stack)
	p.stack = append(p.stack, root)
	d.Content = p.content(mark)
	return d
}

// ---------------------------------------------------------------------------
// Block structure.

// blockNode parses the block node that starts at p.pos. allowCollection
// is false where yaml.v3 forbids a block collection to start on the same
// line (after "key: "), true on a line of its own and after "- ". On
// return p.pos is at the start of a line (or the end of the text).
func (p *fastYAML) blockNode(allowCollection bool) *yaml.Node {
	col := p.column(p.pos)
	switch c := p.at(p.pos); {
	case p.isSeqEntry(p.pos):
		if !allowCollection {
			p.bail()
		}
		return p.blockSequence(col, false)
	case c == '|' || c == '>':
		return p.blockScalar()
	case c == '[' || c == '{':
		n := p.flowCollection()
		p.endLine() // a flow collection as a key ("[a]: b") is left to yaml.v3
		return n
	}
	tok := p.scanScalar(false)
	if p.keyFollows(tok) {
		if !allowCollection {
			p.bail() // "a: b: c"
		}
		return p.blockMapping(col, tok)
	}
	n := p.scalarNode(tok)
	p.pos = tok.next
	p.endLine()
	return n
}

// keyFollows reports whether the scalar token is an implicit key: followed,
// maybe after spaces, by ':' and a blank. It leaves p.pos alone.
func (p *fastYAML) keyFollows(tok fyToken) bool {
	i := tok.next
	for p.at(i) == ' ' {
		i++
	}
	if p.at(i) != ':' || !isBlankz(p.at(i+1)) {
		return false
	}
	if i-tok.mark > fastYAMLMaxKeyLen {
		p.bail() // maybe too long for yaml.v3 to see as a key
	}
	return true
}

// blockMapping parses a block mapping whose keys are at column col, the
// first of which has been scanned into first.
func (p *fastYAML) blockMapping(col int, first fyToken) *yaml.Node {
	p.enter()
	n := p.newNode(yaml.MappingNode, tagMap, p.line, col)
	outer := p.indent
	p.indent = col
	mark := len(p.stack)
	for key := first; ; {
		p.stack = append(p.stack, p.scalarNode(key))
		p.pos = key.next
		p.skipSpaces()
		colonLine, colonCol := p.line, p.column(p.pos)
		p.pos++ // ':'
		p.stack = append(p.stack, p.mappingValue(col, colonLine, colonCol))

		ind := p.peekContent()
		if ind < col {
			break
		}
		if ind > col {
			p.bail() // a continuation line, or bad indentation
		}
		p.pos += ind
		if key = p.scanScalar(false); !p.keyFollows(key) {
			p.bail()
		}
	}
	n.Content = p.content(mark)
	p.indent = outer
	p.leave()
	return n
}

// mappingValue parses the value after the ':' of a key of the block mapping
// at column col; the ':' was at colonLine, colonCol.
func (p *fastYAML) mappingValue(col, colonLine, colonCol int) *yaml.Node {
	p.skipSpaces()
	if !p.atLineEnd() {
		return p.blockNode(false)
	}
	p.endLine()
	ind := p.peekContent()
	switch {
	case ind > col:
		p.pos += ind
		return p.blockNode(true)
	case ind == col && p.isSeqEntry(p.pos+ind):
		// A sequence may sit at its key's indentation.
		p.pos += ind
		return p.blockSequence(col, true)
	}
	// Nothing: yaml.v3 makes a null at the end of the ':'.
	return p.emptyScalar(colonLine, colonCol+1)
}

// blockSequence parses a block sequence whose '-' indicators are at column
// col. An indentless sequence (one at the indentation of the key it is the
// value of) does not change yaml.v3's indent and ends at the first line at
// col that is not an entry; a normal one must not be followed by anything
// else at its column.
func (p *fastYAML) blockSequence(col int, indentless bool) *yaml.Node {
	p.enter()
	n := p.newNode(yaml.SequenceNode, tagSeq, p.line, col)
	outer := p.indent
	if !indentless {
		p.indent = col
	}
	mark := len(p.stack)
	for {
		p.stack = append(p.stack, p.sequenceEntry(col))
		ind := p.peekContent()
		if ind > col {
			p.bail()
		}
		if ind < col {
			break
		}
		if !p.isSeqEntry(p.pos + ind) {
			if !indentless {
				p.bail()
			}
			break
		}
		p.pos += ind
	}
	n.Content = p.content(mark)
	p.indent = outer
	p.leave()
	return n
}

// sequenceEntry parses the entry whose '-' is at p.pos, in a sequence at
// column col.
func (p *fastYAML) sequenceEntry(col int) *yaml.Node {
	dashLine, dashCol := p.line, p.column(p.pos)
	p.pos++
	p.skipSpaces()
	if !p.atLineEnd() {
		return p.blockNode(true) // "- a", "- a: b", "- - a"
	}
	p.endLine()
	if ind := p.peekContent(); ind > col {
		p.pos += ind
		return p.blockNode(true)
	}
	// An empty entry: yaml.v3 makes a null at the end of the '-'.
	return p.emptyScalar(dashLine, dashCol+1)
}

// ---------------------------------------------------------------------------
// Scalars.

// fyToken is a scalar found on the current line.
type fyToken struct {
	mark       int        // offset of the token's first character (the quote, if quoted)
	start, end int        // the value's text, quotes excluded, trailing spaces of plain scalars trimmed
	next       int        // offset just after the token
	style      yaml.Style // 0, yaml.SingleQuotedStyle or yaml.DoubleQuotedStyle
	escaped    bool       // the quoted text holds escapes to decode
}

// scanScalar scans the plain or quoted scalar at p.pos, in block or flow
// context, without moving p.pos.
func (p *fastYAML) scanScalar(flow bool) fyToken {
	switch c := p.at(p.pos); c {
	case '\'', '"':
		return p.scanQuoted(c)
	default:
		if !p.canStartPlain(flow) {
			p.bail()
		}
		return p.scanPlain(flow)
	}
}

// canStartPlain reports whether a plain scalar may start at p.pos, by
// yaml.v3's rules (fetch_next_token): not at a blank or an indicator,
// except '-' (and, in block context, '?' and ':') followed by a non-blank.
func (p *fastYAML) canStartPlain(flow bool) bool {
	c, next := p.at(p.pos), p.at(p.pos+1)
	switch c {
	case ' ', '\t', '\n', 0,
		',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	case '-':
		return !isBlankz(next)
	case '?', ':':
		return !flow && !isBlankz(next)
	}
	return true
}

// scanPlain scans a plain scalar that must end on the current line, as
// yaml.v3's scan_plain_scalar does: it stops at ": " (or ':' at the end of
// the line), at " #", at the end of the line and, in flow context, at flow
// indicators. A scalar that yaml.v3 would continue on the next line is
// caught by the callers, which refuse a more indented line after a value.
func (p *fastYAML) scanPlain(flow bool) fyToken {
	start := p.pos
	i, end := start, start
	for {
		if p.at(i) == '#' {
			break // only reachable after a blank: a comment
		}
		for {
			// Most bytes need no second look: run over them.
			j := i
			for j < len(p.src) && plainRun[p.src[j]] {
				j++
			}
			if j > i {
				i, end = j, j
			}
			c := p.at(i)
			if isBlankz(c) {
				break
			}
			if c == ':' && isBlankz(p.at(i+1)) || flow && isFlowIndicator(c) {
				return fyToken{mark: start, start: start, end: end, next: i}
			}
			i++ // a ':' inside the scalar, or a flow indicator outside flow
			end = i
		}
		if c := p.at(i); c == '\n' || c == 0 {
			break
		}
		for p.at(i) == ' ' {
			i++
		}
		if p.at(i) == '\t' {
			p.bail()
		}
	}
	return fyToken{mark: start, start: start, end: end, next: i}
}

// plainRun marks the bytes a plain scalar runs over without looking at
// what follows: all but blanks, ':', the flow indicators and NUL (the end
// of the text).
var plainRun = func() (run [256]bool) {
	for c := range run {
		run[c] = true
	}
	for _, c := range []byte(" \t\n:,?[]{}\x00") {
		run[c] = false
	}
	return run
}()

// isFlowIndicator reports whether c ends a plain scalar in flow context.
func isFlowIndicator(c byte) bool {
	return c == ',' || c == '?' || c == '[' || c == ']' || c == '{' || c == '}'
}

// scanQuoted scans a single- or double-quoted scalar that must close on the
// current line.
func (p *fastYAML) scanQuoted(quote byte) fyToken {
	tok := fyToken{mark: p.pos, start: p.pos + 1, style: yaml.SingleQuotedStyle}
	if quote == '"' {
		tok.style = yaml.DoubleQuotedStyle
	}
	for i := tok.start; ; i++ {
		switch c := p.at(i); {
		case c == '\n' || c == 0:
			p.bail() // a multi-line scalar: folding is left to yaml.v3
		case c == '\'' && quote == '\'':
			if p.at(i+1) == '\'' {
				tok.escaped = true
				i++
				continue
			}
			tok.end, tok.next = i, i+1
			return tok
		case c == '"' && quote == '"':
			tok.end, tok.next = i, i+1
			return tok
		case c == '\\' && quote == '"':
			if next := p.at(i + 1); next == '\n' || next == 0 {
				p.bail() // an escaped line break
			}
			tok.escaped = true
			i++ // the escaped character cannot end the scalar
		}
	}
}

// scalarNode builds the node of a scalar token on the current line.
func (p *fastYAML) scalarNode(tok fyToken) *yaml.Node {
	var value, tag string
	switch {
	case tok.style == 0:
		value = p.src[tok.start:tok.end]
		tag = resolvePlainTag(value)
	case tok.escaped:
		value, tag = p.unescape(tok), tagStr
	default:
		value, tag = p.src[tok.start:tok.end], tagStr
	}
	n := p.newNode(yaml.ScalarNode, tag, p.line, p.column(tok.mark))
	n.Value, n.Style = value, tok.style
	return n
}

// unescape decodes the text of a quoted scalar that holds escapes.
func (p *fastYAML) unescape(tok fyToken) string {
	s := p.src[tok.start:tok.end]
	if tok.style == yaml.SingleQuotedStyle {
		return strings.ReplaceAll(s, "''", "'")
	}
	p.buf = appendUnescapedDouble(p.buf[:0], s, p.bail)
	return string(p.buf)
}

// appendUnescapedDouble appends the double-quoted text s with its escapes
// decoded as yaml.v3's scan_flow_scalar decodes them, calling bail on
// anything yaml.v3 would refuse.
func appendUnescapedDouble(b []byte, s string, bail func()) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		if i++; i >= len(s) {
			bail()
		}
		codeLen := 0
		switch s[i] {
		case '0':
			b = append(b, 0)
		case 'a':
			b = append(b, '\x07')
		case 'b':
			b = append(b, '\x08')
		case 't', '\t':
			b = append(b, '\x09')
		case 'n':
			b = append(b, '\x0A')
		case 'v':
			b = append(b, '\x0B')
		case 'f':
			b = append(b, '\x0C')
		case 'r':
			b = append(b, '\x0D')
		case 'e':
			b = append(b, '\x1B')
		case ' ':
			b = append(b, '\x20')
		case '"':
			b = append(b, '"')
		case '\'':
			b = append(b, '\'')
		case '\\':
			b = append(b, '\\')
		case 'N':
			b = append(b, "\u0085"...)
		case '_':
			b = append(b, "\u00A0"...)
		case 'L':
			b = append(b, "\u2028"...)
		case 'P':
			b = append(b, "\u2029"...)
		case 'x':
			codeLen = 2
		case 'u':
			codeLen = 4
		case 'U':
			codeLen = 8
		default:
			bail() // yaml.v3: "found unknown escape character"
		}
		if codeLen == 0 {
			continue
		}
		if i+codeLen >= len(s) {
			bail()
		}
		v, err := strconv.ParseUint(s[i+1:i+1+codeLen], 16, 32)
		if err != nil || v >= 0xD800 && v <= 0xDFFF || v > 0x10FFFF {
			bail() // yaml.v3 refuses these
		}
		b = utf8.AppendRune(b, rune(v))
		i += codeLen
	}
	return b
}

// blockScalar parses the literal ('|') or folded ('>') scalar whose
// indicator is at p.pos, following YAML's block scalar rules (header,
// auto-detected indentation, folding, chomping) as yaml.v3 applies them, for
// text whose only line break is LF. On return p.pos is at the start of the
// first line after the scalar.
func (p *fastYAML) blockScalar() *yaml.Node {
	line, col := p.line, p.column(p.pos)
	literal := p.at(p.pos) == '|'
	p.pos++
	chomping, increment := p.blockScalarHeader()

	indent := 0
	if increment > 0 {
		indent = increment
		if p.indent >= 0 {
			indent += p.indent
		}
	}
	s := p.buf[:0]
	trailing := p.blockScalarBreaks(&indent)
	leadingBreak, leadingBlank := false, false
	for p.column(p.pos) == indent && p.pos < len(p.src) {
		// At the first non-indentation character of a content line.
		trailingBlank := p.at(p.pos) == ' ' || p.at(p.pos) == '\t'
		if !literal && leadingBreak && !leadingBlank && !trailingBlank {
			// Folding: a single line break becomes a space.
			if trailing == 0 {
				s = append(s, ' ')
			}
		} else if leadingBreak {
			s = append(s, '\n')
		}
		s = appendNewlines(s, trailing)
		leadingBlank = trailingBlank

		eol := strings.IndexByte(p.src[p.pos:], '\n')
		if eol < 0 {
			s = append(s, p.src[p.pos:]...)
			p.pos = len(p.src)
			leadingBreak = false
		} else {
			s = append(s, p.src[p.pos:p.pos+eol]...)
			p.pos += eol + 1
			p.newLine(p.pos)
			leadingBreak = true
		}
		trailing = p.blockScalarBreaks(&indent)
	}
	// Chomping: strip (-) drops the final line break, keep (+) keeps the
	// trailing empty lines too.
	if chomping != -1 && leadingBreak {
		s = append(s, '\n')
	}
	if chomping == 1 {
		s = appendNewlines(s, trailing)
	}
	p.buf = s
	if p.pos < len(p.src) {
		p.pos = p.lineStart // back from the indentation to the line start
	}

	n := p.newNode(yaml.ScalarNode, tagStr, line, col)
	n.Value = string(s)
	n.Style = yaml.LiteralStyle
	if !literal {
		n.Style = yaml.FoldedStyle
	}
	return n
}

// blockScalarHeader parses the chomping and indentation indicators and the
// rest of a block scalar's header line, and moves to the next line.
func (p *fastYAML) blockScalarHeader() (chomping, increment int) {
	chompingAt := func() bool {
		switch p.at(p.pos) {
		case '+':
			chomping = 1
		case '-':
			chomping = -1
		default:
			return false
		}
		p.pos++
		return true
	}
	incrementAt := func() bool {
		c := p.at(p.pos)
		if c < '0' || c > '9' {
			return false
		}
		if c == '0' {
			p.bail() // yaml.v3: "found an indentation indicator equal to 0"
		}
		increment = int(c - '0')
		p.pos++
		return true
	}
	if chompingAt() {
		incrementAt()
	} else if incrementAt() {
		chompingAt()
	}
	for c := p.at(p.pos); c == ' ' || c == '\t'; c = p.at(p.pos) {
		p.pos++
	}
	if p.at(p.pos) == '#' {
		for c := p.at(p.pos); c != '\n' && c != 0; c = p.at(p.pos) {
			p.pos++
		}
	}
	switch p.at(p.pos) {
	case '\n':
		p.pos++
		p.newLine(p.pos)
	case 0:
	default:
		p.bail() // yaml.v3: "did not find expected comment or line break"
	}
	return chomping, increment
}

// blockScalarBreaks eats the
// indentation and the empty lines before the next content line, counting
// the line breaks, and settles the indentation if it is not known yet.
func (p *fastYAML) blockScalarBreaks(indent *int) (breaks int) {
	maxIndent := 0
	for {
		for (*indent == 0 || p.column(p.pos) < *indent) && p.at(p.pos) == ' ' {
			p.pos++
		}
		maxIndent = max(maxIndent, p.column(p.pos))
		if (*indent == 0 || p.column(p.pos) < *indent) && p.at(p.pos) == '\t' {
			p.bail() // yaml.v3: "found a tab character where an indentation space is expected"
		}
		if p.at(p.pos) != '\n' {
			break
		}
		p.pos++
		p.newLine(p.pos)
		breaks++
	}
	if *indent == 0 {
		*indent = max(maxIndent, p.indent+1, 1)
	}
	return breaks
}

// appendNewlines appends n line breaks.
func appendNewlines(s []byte, n int) []byte {
	for ; n > 0; n-- {
		s = append(s, '\n')
	}
	return s
}

// ---------------------------------------------------------------------------
// Flow collections.

// flowCollection parses the flow sequence or mapping at p.pos, which must
// close on the same line, and moves p.pos past its end.
func (p *fastYAML) flowCollection() *yaml.Node {
	p.enter()
	open := p.at(p.pos)
	var n *yaml.Node
	closer := byte(']')
	if open == '[' {
		n = p.newNode(yaml.SequenceNode, tagSeq, p.line, p.column(p.pos))
	} else {
		n = p.newNode(yaml.MappingNode, tagMap, p.line, p.column(p.pos))
		closer = '}'
	}
	n.Style = yaml.FlowStyle
	mark := len(p.stack)
	p.pos++
	p.skipSpaces()
	if p.at(p.pos) == closer {
		p.pos++
		p.leave()
		return n
	}
	for {
		if open == '[' {
			p.stack = append(p.stack, p.flowNode())
		} else {
			p.flowPair()
		}
		p.skipSpaces()
		switch p.at(p.pos) {
		case closer:
			p.pos++
			n.Content = p.content(mark)
			p.leave()
			return n
		case ',':
			p.pos++
			p.skipSpaces()
			if p.at(p.pos) == closer {
				p.bail() // a trailing comma
			}
		default:
			p.bail() // "[a: b]", a comment, the end of the line, ...
		}
	}
}

// flowPair parses a "key: value" entry of a flow mapping and pushes both.
func (p *fastYAML) flowPair() {
	switch p.at(p.pos) {
	case '[', '{':
		p.bail() // a collection as a key
	}
	tok := p.scanScalar(true)
	key := p.scalarNode(tok)
	p.pos = tok.next
	p.skipSpaces()
	// After a plain key the scanner only stops at ':' followed by a blank;
	// after a quoted one yaml.v3 also takes an adjacent ':' ({"a":1}).
	if p.at(p.pos) != ':' {
		p.bail() // a key without a value
	}
	if p.pos-tok.mark > fastYAMLMaxKeyLen {
		p.bail()
	}
	p.pos++
	p.skipSpaces()
	if c := p.at(p.pos); c == ',' || c == '}' {
		p.bail() // an empty value
	}
	p.stack = append(p.stack, key, p.flowNode())
}

// flowNode parses a node inside a flow collection.
func (p *fastYAML) flowNode() *yaml.Node {
	switch p.at(p.pos) {
	case '[', '{':
		return p.flowCollection()
	}
	tok := p.scanScalar(true)
	n := p.scalarNode(tok)
	p.pos = tok.next
	return n
}

// ---------------------------------------------------------------------------
// Tag resolution.

// resolvePlainTag is the tag yaml.v3 gives a plain scalar: its resolve()
// with no explicit tag (resolve.go), plus the !!merge tag its parser gives
// "<<". The checks run in the order yaml.v3 runs them (exact words, then
// timestamps, integers, floats, binary and octal), so that the decision is
// the same for every string; the differential tests compare the two.
func resolvePlainTag(s string) string {
	if s == "" {
		return tagNull
	}
	hint := resolveHint(s[0])
	if hint == 0 {
		if s == "<<" {
			return tagMerge
		}
		return tagStr
	}
	if tag, ok := resolveMapTag(s); ok {
		return tag
	}
	switch hint {
	case '.':
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return tagFloat
		}
	case 'D', 'S':
		return resolveNumberTag(s)
	}
	return tagStr
}

// resolveHint is what a scalar's first byte says it might be: a signed or
// unsigned number, a word (bool, null), or a special float.
func resolveHint(c byte) byte {
	switch c {
	case '+', '-':
		return 'S'
	case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return 'D'
	case 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O', '~':
		return 'M'
	case '.':
		return '.'
	}
	return 0
}

// resolveMapTag gives the tags of the words yaml.v3 resolves by spelling.
func resolveMapTag(s string) (string, bool) {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return tagBool, true
	case "~", "null", "Null", "NULL":
		return tagNull, true
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return tagFloat, true
	case "<<":
		return tagMerge, true
	}
	return "", false
}

// isYAMLStyleFloat matches what yaml.v3's yamlStyleFloat regular
// expression matches,
//
//	^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
//
// without the cost of running it on every "5s" and "150ms" of a manifest.
// Each part of the expression is decided by its first character, so
// matching greedily is exact.
func isYAMLStyleFloat(s string) bool {
	i := 0
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// resolveNumberTag resolves a plain scalar starting with a sign or a digit,
// like the 'D' and 'S' cases of yaml.v3's resolve.
func resolveNumberTag(s string) string {
	if tag, ok := commonNumberTag(s); ok {
		return tag
	}
	if looksLikeTimestamp(s) {
		return tagTimestamp
	}
	plain := strings.ReplaceAll(s, "_", "")
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return tagInt
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return tagInt
	}
	if isYAMLStyleFloat(plain) {
		if _, err := strconv.ParseFloat(plain, 64); err == nil {
			return tagFloat
		}
	}
	if strings.HasPrefix(plain, "0b") {
		if _, err := strconv.ParseInt(plain[2:], 2, 64); err == nil {
			return tagInt
		}
		if _, err := strconv.ParseUint(plain[2:], 2, 64); err == nil {
			return tagInt
		}
	} else if strings.HasPrefix(plain, "-0b") {
		if _, err := strconv.ParseInt("-"+plain[3:], 2, 64); err == nil {
			return tagInt
		}
	}
	if strings.HasPrefix(plain, "0o") {
		if _, err := strconv.ParseInt(plain[2:], 8, 64); err == nil {
			return tagInt
		}
		if _, err := strconv.ParseUint(plain[2:], 8, 64); err == nil {
			return tagInt
		}
	} else if strings.HasPrefix(plain, "-0o") {
		if _, err := strconv.ParseInt("-"+plain[3:], 8, 64); err == nil {
			return tagInt
		}
	}
	return tagStr
}

// commonNumberTag tags, without strconv, the three shapes most scalars
// that start like a number have: a decimal integer that fits in an int64
// (a port, a count); digits with two or more dots (an address, a version);
// and digits followed by letters that cannot make a number (a duration,
// "30s", or a quantity, "64Mi"). The last two are neither numbers nor
// timestamps, and strconv reports each with two error values, 40,000 of
// them loading 5,000 HTTPProxies. Anything else is left to
// resolveNumberTag.
func commonNumberTag(s string) (string, bool) {
	digits := s
	if digits != "" && (digits[0] == '-' || digits[0] == '+') {
		digits = digits[1:]
	}
	dots := 0
	for i := 0; i < len(digits); i++ {
		switch c := digits[i]; {
		case c == '.':
			dots++
		case c < '0' || c > '9':
			if dots == 0 && i > 0 && unitSuffix(digits[i:]) {
				return tagStr, true
			}
			return "", false
		}
	}
	switch {
	case dots >= 2:
		return tagStr, true
	case dots == 0 && len(digits) > 0 && len(digits) <= 18 && (digits[0] != '0' || len(digits) == 1):
		// No leading zero: base 0 would read "012" as octal.
		return tagInt, true
	}
	return "", false
}

// unitSuffix says whether s, which follows a number's digits, is letters
// only, none of which a number can hold there: an exponent (e), a base (x,
// o, b, which follow a 0) or a special float (inf and nan need a dot).
func unitSuffix(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20 // lower case, for letters
		if c < 'a' || c > 'z' || c == 'e' || c == 'x' || c == 'o' || c == 'b' {
			return false
		}
	}
	return true
}

// timestampFormats are the layouts yaml.v3 accepts as timestamps.
var timestampFormats = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

// looksLikeTimestamp says whether yaml.v3 would read s as a timestamp:
// four digits and a dash, then one of timestampFormats.
func looksLikeTimestamp(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			break
		}
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, format := range timestampFormats {
		if _, err := time.Parse(format, s); err == nil {
			return true
		}
	}
	return false
}
