package fastyaml

// Before parsing: one look over the text, eight bytes at a time, that
// tells whether it holds only characters the parser can take (see
// fastYAMLPrescan) and how many nodes it is likely to build.

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

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
