package fastyaml

// The scanner: the parser's state, its position in the text by line and
// column, and the scalar tokens (plain and quoted) it reads, as yaml.v3's
// scannerc.go reads them for the subset.

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

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
