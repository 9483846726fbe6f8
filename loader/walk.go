package loader

import "github.com/contourc/contourc/loader/walk"

// InputSize is the total size of the files Load would read for paths,
// standard input and paths it cannot read counting as nothing: for a
// caller that sizes its memory to the input before loading it.
func InputSize(paths []string) int64 { return walk.InputSize(paths) }
