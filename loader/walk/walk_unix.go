//go:build unix

package walk

import (
	"os"
	"syscall"
)

// dirKey identifies a directory whatever the path it is reached by.
type dirKey struct{ dev, ino uint64 }

// dirKeyOf is the key of directory dir, whose FileInfo (from stat) is
// info: its device and inode.
func dirKeyOf(_ string, info os.FileInfo) (dirKey, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return dirKey{}, false
	}
	return dirKey{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true //nolint:unconvert // Dev is int32 on some systems
}
