//go:build unix

package walk

import (
	"os"
	"syscall"
)

// openNonBlocking opens path read-only with O_NONBLOCK, with which open(2)
// of a named pipe returns at once, writer or not (reads then wait in Go's
// poller, or see the end when there is no writer), and O_NOCTTY, so that a
// terminal swapped in does not become the controlling one.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
