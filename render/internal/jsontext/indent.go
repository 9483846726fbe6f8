package jsontext

// A fast re-indenter for JSON that is known to be valid.
//
// protojson deliberately varies its whitespace so that nobody depends on
// its exact bytes; contourc promises byte-identical output, so what
// protojson prints (the rare messages the fast encoder leaves to it) is laid
// out again. encoding/json.Indent does that but validates as it goes, one
// state-machine call per byte; protojson's output needs no validating, so
// this only tracks strings and nesting, and produces the same bytes as
// json.Indent(dst, src, prefix, "  ") (a test checks that). The tests also
// use it as the reference layout for the encoder's own indentation.

import "bytes"

const IndentUnit = "  "

// AppendIndented appends src, one valid JSON value, to dst laid out with
// two-space indentation, each line after the first starting with prefix.
func AppendIndented(dst, src []byte, prefix string) []byte {
	depth := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case ' ', '\t', '\n', '\r':
			// Insignificant whitespace: the layout is rebuilt below.
		case '"':
			end := stringEnd(src, i)
			dst = append(dst, src[i:end]...)
			i = end - 1
		case '{', '[':
			// json.Indent keeps an empty object or array on one line.
			if j := skipSpace(src, i+1); j < len(src) && (src[j] == '}' || src[j] == ']') {
				dst = append(dst, c, src[j])
				i = j
				continue
			}
			depth++
			dst = append(dst, c)
			dst = NewLine(dst, prefix, depth)
		case '}', ']':
			depth--
			dst = NewLine(dst, prefix, depth)
			dst = append(dst, c)
		case ',':
			dst = append(dst, ',')
			dst = NewLine(dst, prefix, depth)
		case ':':
			dst = append(dst, ':', ' ')
		default:
			// Numbers, true, false, null: copied byte by byte.
			dst = append(dst, c)
		}
	}
	return dst
}

// stringEnd returns the index just past the closing quote of the string
// starting at src[start], a quote. A quote ends the string unless an odd
// number of backslashes precedes it.
func stringEnd(src []byte, start int) int {
	i := start + 1
	for {
		k := bytes.IndexByte(src[i:], '"')
		if k < 0 {
			return len(src) // not valid JSON; cannot happen with protojson
		}
		i += k
		backslashes := 0
		for j := i - 1; j > start && src[j] == '\\'; j-- {
			backslashes++
		}
		i++
		if backslashes%2 == 0 {
			return i
		}
	}
}

func skipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i
}

// NewLine starts a line at depth: a newline, prefix, then depth indent
// units, copied from a run of spaces rather than appended one unit at a
// time (the output has millions of lines, a dozen levels deep).
func NewLine(dst []byte, prefix string, depth int) []byte {
	dst = append(dst, '\n')
	dst = append(dst, prefix...)
	return appendSpaces(dst, depth*len(IndentUnit))
}

// appendSpaces appends n spaces, copied from indentSpaces.
func appendSpaces(dst []byte, n int) []byte {
	for n > len(indentSpaces) {
		dst = append(dst, indentSpaces...)
		n -= len(indentSpaces)
	}
	return append(dst, indentSpaces[:n]...)
}

// indentSpaces is a run of spaces for appendSpaces; deeper lines take
// several.
const indentSpaces = "                                                                "
