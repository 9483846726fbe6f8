package fastyaml

// Literal (|) and folded (>) block scalars: the header's chomping and
// indentation indicators, and the lines that make the value.

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

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
