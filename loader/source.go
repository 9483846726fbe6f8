package loader

import "github.com/contourc/contourc/loader/internal/manifest"

// The types of where an object came from and what was wrong with it are
// defined with the parsing that makes them (loader/internal/manifest);
// these names are the loader's API for them.
type (
	// Source says where an object was read from.
	Source = manifest.Source
	// Error is a problem with one input, pointing at the file, line and
	// object.
	Error = manifest.Error
	// EntryOrigin is the entry point an object was built through.
	EntryOrigin = manifest.EntryOrigin
)
