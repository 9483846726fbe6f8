package fastyaml

// The tree builder: documents, block mappings and sequences, and one-line
// flow collections, built into yaml.Node trees the way yaml.v3's parserc.go
// and its composer would build them.

import (
	"go.yaml.in/yaml/v3"
)

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
