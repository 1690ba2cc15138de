// Package safefile is the one opener of every file a user names on the
// command line (models, logs, snapshots, locks, reports). It refuses what is
// not a regular file — a named pipe, a device such as /dev/zero, a folder —
// without ever blocking on it, and caps how much of each kind of file is read
// into memory, so a hostile or mistaken path gives a clear error instead of a
// hang or a huge allocation.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Kind is what a file is expected to be and how much of it may be read whole.
type Kind struct {
	Name string // for messages: "snapshot", "lock file", ...
	// Max is the most bytes ReadFile reads; 0 means the file is only
	// opened (streamed or read piecewise by the caller, as a model or log).
	Max int64
}

// The kinds of input files llamactl reads.
var (
	Model    = Kind{Name: "model"}                              // GGUF: the reader reads the header only, with its own budget
	Log      = Kind{Name: "log"}                                // streamed line by line
	Snapshot = Kind{Name: "snapshot", Max: 64 << 20}            // doctor --snapshot/--json, report.json
	Report   = Kind{Name: "snapshot or report", Max: 256 << 20} // a report zip (report.json in it: Snapshot's cap)
	Lock     = Kind{Name: "lock", Max: 1 << 20}                 // build --lock
	Small    = Kind{Name: "file", Max: 4 << 20}                 // markers, caches, version files
	Archive  = Kind{Name: "archive", Max: 4 << 30}              // a downloaded engine archive
)

// ErrNotRegular means the path is a pipe, device, socket or folder.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge means the file is larger than its kind allows.
var ErrTooLarge = errors.New("file too large")

// Error says which file was refused and why; it wraps ErrNotRegular or
// ErrTooLarge (or the OS error).
type Error struct {
	Path string
	Kind Kind
	What string // "a named pipe", "a device", "a folder", "larger than 64 MiB"
	Err  error
}

func (e *Error) Error() string {
	switch {
	case errors.Is(e.Err, ErrNotRegular):
		return fmt.Sprintf("%s is %s, not a %s file: give the path of a regular file", e.Path, e.What, e.Kind.Name)
	case errors.Is(e.Err, ErrTooLarge):
		return fmt.Sprintf("%s is %s: too large for a %s", e.Path, e.What, e.Kind.Name)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// describe names a non-regular file mode for a message.
func describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

func notRegular(path string, k Kind, m fs.FileMode) error {
	return &Error{Path: path, Kind: k, What: describe(m), Err: ErrNotRegular}
}

func tooLarge(path string, k Kind) error {
	return &Error{Path: path, Kind: k, What: "larger than " + human(k.Max), Err: ErrTooLarge}
}

func human(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Open opens path for reading if it is a regular file (symbolic links are
// followed). It checks before opening, opens without blocking (a pipe
// swapped in between cannot hang it) and checks the opened file again. A
// file larger than k.Max (when set) is refused.
func Open(path string, k Kind) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, notRegular(path, k, st.Mode())
	}
	fh, err := openNonBlocking(path)
	if err != nil {
		return nil, err
	}
	st, err = fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		fh.Close()
		return nil, notRegular(path, k, st.Mode())
	}
	if k.Max > 0 && st.Size() > k.Max {
		fh.Close()
		return nil, tooLarge(path, k)
	}
	return fh, nil
}

// ReadFile reads a whole regular file of kind k (k.Max must be set), never
// more than k.Max bytes even when the file grows while it is read.
func ReadFile(path string, k Kind) ([]byte, error) {
	fh, err := Open(path, k)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := ReadAll(fh, k)
	if errors.Is(err, ErrTooLarge) {
		return nil, tooLarge(path, k)
	}
	return b, err
}

// ReadAll reads r (standard input, an entry of a zip) up to k.Max bytes; more
// is ErrTooLarge.
func ReadAll(r io.Reader, k Kind) ([]byte, error) {
	limit := k.Max
	if limit <= 0 {
		limit = Small.Max
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &Error{Path: "input", Kind: k, What: "larger than " + human(limit), Err: ErrTooLarge}
	}
	return b, nil
}
