//go:build !linux

package loader

// stampOf stamps nothing where the change time is not known: every file is
// hashed to tell whether it changed.
func stampOf(string) fileStamp { return fileStamp{} }
