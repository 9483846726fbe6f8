//go:build !unix

package walk

import "os"

// openNonBlocking opens path read-only; there are no named pipes in the
// file system to block on.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
