package loader

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/contourc/contourc/loader/internal/manifest"
	"github.com/contourc/contourc/loader/walk"
)

// readInput reads one input, "-" meaning opts.Stdin, refusing anything
// larger than the size limit before it is all in memory. Only a file given
// by name (named) may be a named pipe.
func readInput(path string, named bool, opts Options) (string, []byte, error) {
	name := path
	var r io.Reader
	if path == walk.StdinPath {
		name = walk.StdinName
		if opts.Stdin == nil {
			return name, nil, &Error{Source: Source{File: name}, Msg: "no standard input to read"}
		}
		r = opts.Stdin
	} else {
		f, err := walk.OpenInput(path, named)
		if err != nil {
			return name, nil, err
		}
		defer f.Close()
		r = f
	}
	limit := opts.maxInputSize()
	data, err := readAtMost(r, limit+1)
	if err != nil {
		return name, nil, &Error{Source: Source{File: name}, Msg: manifest.DescribeFSError(err)}
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
