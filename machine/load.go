package machine

import (
	"archive/zip"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/llamactl/llamactl/internal/safefile"
	"github.com/llamactl/llamactl/internal/textenc"
)

// MaxInputBytes bounds a snapshot input: snapshots are a few hundred KiB.
const MaxInputBytes = 64 << 20

// LoadHint is the next step after any unusable snapshot input.
const LoadHint = "Create one with 'llamactl doctor --snapshot machine.json' on the machine to diagnose."

// LoadError says why a snapshot input cannot be used; commands turn it into
// a usage error (exit 2). Error() ends with the next step.
type LoadError struct {
	Path   string
	Reason string // what is wrong, naming Path
	Hint   string // the next step; LoadHint unless the fix is to update llamactl
	Err    error  // the underlying error, if any
}

func (e *LoadError) Error() string {
	if e.Hint == "" {
		return e.Reason
	}
	return e.Reason + ". " + e.Hint
}

func (e *LoadError) Unwrap() error { return e.Err }

// LoadTextEN is the English of LoadError's reasons and hint by stable key
// (data/text.en.json: {placeholders}, as this file words them), and
// LoadTextZhCN their Simplified Chinese: the CLI reads an error's English
// back into key and values and renders it in the user's language.
//
//go:embed data/text.en.json
var LoadTextEN []byte

// LoadTextZhCN translates LoadTextEN.
//
//go:embed data/text.zh-CN.json
var LoadTextZhCN []byte

// Load reads the machine facts from path: a bare snapshot, a `doctor --json`
// document or a support report.json (both carry a "snapshot" field), a
// report folder (its report.json) or a report zip holding one of those; in
// UTF-8 (with or without a byte-order mark) or UTF-16LE/BE with one, as
// Windows PowerShell 5.1's `>` writes. Every failure is a *LoadError.
func Load(path string) (*Snapshot, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "report.json") // a --report folder
	}
	b, err := readInput(path)
	if err != nil {
		return nil, err
	}
	return Parse(b, path)
}

// readInput is the one place Load reads a file, through internal/safefile
// (a pipe, a device or a folder is refused without blocking): a report zip's
// snapshot-bearing entry, else the whole file; either up to MaxInputBytes.
func readInput(path string) ([]byte, error) {
	fail := func(err error) error {
		var fe *safefile.Error
		if errors.As(err, &fe) {
			return &LoadError{Path: path, Reason: err.Error(), Hint: LoadHint, Err: err}
		}
		return &LoadError{Path: path, Reason: fmt.Sprintf("cannot read %s: %v", path, reason(err)), Hint: LoadHint, Err: err}
	}
	fh, err := safefile.Open(path, safefile.Report)
	if err != nil {
		return nil, fail(err)
	}
	defer fh.Close()
	var magic [4]byte
	n, _ := io.ReadFull(fh, magic[:])
	if string(magic[:n]) == "PK\x03\x04" {
		st, err := fh.Stat()
		if err != nil {
			return nil, fail(err)
		}
		b, err := fromZip(fh, st.Size())
		if err != nil {
			return nil, &LoadError{Path: path, Reason: fmt.Sprintf("%s: %v", path, err), Hint: LoadHint, Err: err}
		}
		return b, nil
	}
	rest, err := safefile.ReadAll(fh, inputKind)
	if errors.Is(err, safefile.ErrTooLarge) {
		return nil, &LoadError{Path: path, Reason: fmt.Sprintf("%s is larger than %d MiB: not a snapshot", path, MaxInputBytes>>20), Hint: LoadHint, Err: err}
	}
	if err != nil {
		return nil, fail(err)
	}
	return append(magic[:n:n], rest...), nil
}

// inputKind caps what is read of one snapshot document.
var inputKind = safefile.Kind{Name: "snapshot", Max: MaxInputBytes}

// reason is err without the path that the message already names.
func reason(err error) error {
	// The same words on every OS: Windows' texts end in a full stop
	// ("File not found.") that would double the one after them.
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("permission denied")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return errors.New(strings.TrimRight(err.Error(), ". "))
}

// Parse decodes snapshot JSON in any form Load accepts (not zip); name is
// for messages.
func Parse(b []byte, name string) (*Snapshot, error) {
	b = textenc.Bytes(b)
	bad := func(err error, format string, a ...any) error {
		return &LoadError{Path: name, Reason: fmt.Sprintf(format, a...), Hint: LoadHint, Err: err}
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, bad(err, "%s is not a snapshot (invalid JSON: %v)", name, err)
	}
	if inner, ok := doc["snapshot"]; ok && len(inner) > 0 && inner[0] == '{' {
		b = inner
		doc = nil
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, bad(err, "%s: its \"snapshot\" field is not valid JSON: %v", name, err)
		}
	}
	if _, ok := doc["os"]; !ok {
		return nil, bad(nil, "%s is JSON but not a llamactl snapshot (no \"os\" field)", name)
	}
	var s Snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, bad(err, "%s is not a valid snapshot: %v", name, err)
	}
	if s.Schema > SchemaVersion {
		return nil, &LoadError{Path: name, Reason: fmt.Sprintf("%s has snapshot schema %d but this llamactl reads up to %d: update llamactl", name, s.Schema, SchemaVersion)}
	}
	return &s, nil
}

// fromZip returns the snapshot-bearing JSON inside a report zip.
func fromZip(r io.ReaderAt, size int64) ([]byte, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("not a valid zip: %v", err)
	}
	for _, want := range []string{"snapshot.json", "report.json", "doctor.json"} {
		for _, zf := range zr.File {
			if zf.Name != want && !strings.HasSuffix(zf.Name, "/"+want) {
				continue
			}
			rc, err := zf.Open()
			if err != nil {
				return nil, err
			}
			data, err := safefile.ReadAll(rc, inputKind)
			rc.Close()
			if errors.Is(err, safefile.ErrTooLarge) {
				// Never cut off: a truncated document would only fail later, unexplained.
				return nil, fmt.Errorf("its %s is larger than %d MiB, more than llamactl reads", zf.Name, MaxInputBytes>>20)
			}
			if err != nil {
				return nil, err
			}
			return data, nil
		}
	}
	return nil, errors.New("the zip holds no snapshot.json or report.json")
}
