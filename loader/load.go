package loader

import (
	"errors"
	"io"
)

// Options tune Load.
type Options struct {
	// Stdin is read when a path is "-".
	Stdin io.Reader
}

// Load reads every path (file, directory walked recursively for .yaml, .yml
// and .json files, or "-" for Options.Stdin) and returns the objects in a
// deterministic order. On any problem it returns every *Error it found
// (joined with errors.Join) and no result.
func Load(paths []string, opts Options) (*Result, error) {
	return nil, errors.New("loader: not implemented yet")
}
