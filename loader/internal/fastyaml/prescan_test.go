package fastyaml

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// prescanByBytes is fastYAMLPrescan as it was written first, a byte at a
// time: the word-at-a-time scan must agree with it.
func prescanByBytes(text []byte) (lines int, nonASCII, ok bool) {
	for i := 0; i < len(text); {
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
	return bytes.Count(text, []byte{'\n'}) + 1, nonASCII, true
}

func TestFastYAMLPrescanMatchesByteScan(t *testing.T) {
	pieces := []string{"a", "key: value", " ", "\t", "\n", "~", "\r", "\x00", "\x1f", "\x7f", "\x80",
		"é", "€", "😀", "\u0085", "\u2028", "\u2029", "\ufeff", "\ufffd", "\xe2\x82", "\xf0\x9f\x98", "\xff"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var text []byte
		for n := rng.IntN(40); n > 0; n-- {
			p := pieces[rng.IntN(len(pieces))]
			if rng.IntN(4) > 0 {
				p = pieces[rng.IntN(7)] // mostly plain text
			}
			text = append(text, p...)
		}
		gotLines, gotNon, gotOK := fastYAMLPrescan(text)
		wantLines, wantNon, wantOK := prescanByBytes(text)
		if gotOK != wantOK || gotOK && (gotLines != wantLines || gotNon != wantNon) {
			t.Fatalf("%q: got %d %v %v, want %d %v %v", text, gotLines, gotNon, gotOK, wantLines, wantNon, wantOK)
		}
	}
}

func TestPrintableASCIIWord(t *testing.T) {
	for c := range 256 {
		want := c >= 0x20 && c <= 0x7e
		for pos := range 8 {
			w := uint64(0x6161616161616161) // "aaaaaaaa"
			w = w&^(0xff<<(8*pos)) | uint64(c)<<(8*pos)
			if got := printableASCIIWord(w); got != want {
				t.Fatalf("byte %#x at %d: got %v, want %v", c, pos, got, want)
			}
		}
	}
}
