//go:build !unix

package walk

import (
	"os"
	"path/filepath"
)

// dirKey identifies a directory whatever the path it is reached by.
type dirKey struct{ path string }

// dirKeyOf is the key of directory dir: its path with every link
// resolved, where there is no inode to tell.
func dirKeyOf(dir string, _ os.FileInfo) (dirKey, bool) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return dirKey{}, false
	}
	abs, err := filepath.Abs(real)
	if err != nil {
		return dirKey{}, false
	}
	return dirKey{path: abs}, true
}
