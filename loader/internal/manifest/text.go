package manifest

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// utf8BOM is the byte order mark some Windows editors put at the start of
// UTF-8 files. kubectl accepts it, so do we.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// NormalizeText makes the bytes of a manifest what the YAML and JSON parsers
// expect: no BOM, LF line ends. It refuses binary data up front so that a
// stray image or archive is reported as such rather than as an obscure
// syntax error somewhere in the middle.
func NormalizeText(name string, data []byte) ([]byte, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, &Error{Source: Source{File: name, Line: lineAt(data, i)}, Msg: "not a text file: NUL byte found"}
	}
	if !utf8.Valid(data) {
		i := firstInvalidUTF8(data)
		return nil, &Error{Source: Source{File: name, Line: lineAt(data, i)}, Msg: fmt.Sprintf("not a UTF-8 text file: invalid byte 0x%02x at offset %d", data[i], i)}
	}
	if bytes.IndexByte(data, '\r') >= 0 {
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	}
	return data, nil
}

// firstInvalidUTF8 is the offset of the first byte that is not part of a
// valid UTF-8 sequence.
func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// lineAt is the 1-based line of byte offset off.
func lineAt(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}
