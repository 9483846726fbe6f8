package walk

import (
	"os"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// OpenInput opens the file at path for reading without ever blocking, and
// makes sure it is what the walk saw: a regular file or, when pipeOK, a
// named pipe. open(2) of a named pipe blocks until a writer comes, and a
// file can be replaced between the walk's stat and the open, so the type
// that counts is the open file's.
func OpenInput(path string, pipeOK bool) (*os.File, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, &manifest.Error{Source: manifest.Source{File: path}, Msg: manifest.DescribeFSError(err)}
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &manifest.Error{Source: manifest.Source{File: path}, Msg: manifest.DescribeFSError(err)}
	}
	if mode := info.Mode(); !mode.IsRegular() && !(pipeOK && mode&os.ModeNamedPipe != 0) {
		f.Close()
		return nil, notRegular(path, mode)
	}
	return f, nil
}
