package loader

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// utf8BOM is the byte order mark some Windows editors put at the start of
// UTF-8 files. kubectl accepts it, so do we.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// readInput reads one input, "-" meaning opts.Stdin, refusing anything
// larger than the size limit before it is all in memory. Only a file given
// by name (named) may be a named pipe.
func readInput(path string, named bool, opts Options) (string, []byte, error) {
	name := path
	var r io.Reader
	if path == stdinPath {
		name = stdinName
		if opts.Stdin == nil {
			return name, nil, &Error{Source: Source{File: name}, Msg: "no standard input to read"}
		}
		r = opts.Stdin
	} else {
		f, err := openInput(path, named)
		if err != nil {
			return name, nil, err
		}
		defer f.Close()
		r = f
	}
	limit := opts.maxInputSize()
	data, err := readAtMost(r, limit+1)
	if err != nil {
		return name, nil, &Error{Source: Source{File: name}, Msg: describeFSError(err)}
	}
	if int64(len(data)) > limit {
		return name, nil, &Error{Source: Source{File: name}, Msg: fmt.Sprintf("larger than the %s input limit (--max-input-size)", FormatSize(limit))}
	}
	if !opts.budget.take(path, int64(len(data))) {
		return name, nil, &Error{Source: Source{File: name}, Msg: fmt.Sprintf("with the other input, larger than the %s input limit (--max-input-size)", FormatSize(limit))}
	}
	return name, data, nil
}

// readAtMost reads r to its end, to max bytes or to a NUL byte. A file whose size is
// known is read into a buffer of that size, rather than one grown by
// doubling: at 14 MB of manifests that was twice the input in garbage.
func readAtMost(r io.Reader, max int64) ([]byte, error) {
	size := int64(512)
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = min(fi.Size()+1, max) // +1 to see the end without a regrowth
		}
	}
	r = io.LimitReader(r, max)
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF || bytes.IndexByte(buf[len(buf)-n:], 0) >= 0 {
			// A NUL byte makes the input binary, which normalizeText
			// refuses: read no further. /dev/zero on stdin is refused
			// after one read, rather than after the whole input limit.
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// normalizeText makes the bytes of a manifest what the YAML and JSON parsers
// expect: no BOM, LF line ends. It refuses binary data up front so that a
// stray image or archive is reported as such rather than as an obscure
// syntax error somewhere in the middle.
func normalizeText(name string, data []byte) ([]byte, error) {
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
