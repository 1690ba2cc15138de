//go:build !windows

package safefile

import (
	"os"
	"syscall"
)

// openNonBlocking opens with O_NONBLOCK so a FIFO put in place after the
// check returns at once instead of waiting for a writer; for a regular file
// the flag changes nothing.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
