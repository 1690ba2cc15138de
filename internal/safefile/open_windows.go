//go:build windows

package safefile

import "os"

// openNonBlocking: on Windows opening a named pipe or a device by a path
// does not wait for a writer; the checks around it refuse them.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
