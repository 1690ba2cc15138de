package paths

import (
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes data to path through a temporary file in the same
// folder and a rename, creating the folder, so a reader (another llamactl,
// or this one after a crash) sees the old file or the new one, never half
// of one. The file is created with os.CreateTemp's mode (0600).
func WriteFileAtomic(path string, data []byte) error {
	return WriteFileAtomicPerm(path, data, 0o600)
}

// WriteFileAtomicPerm is WriteFileAtomic with the file's permissions, set
// as given. A full disk or any other failure leaves the old file as it was
// and no temporary file behind.
func WriteFileAtomicPerm(path string, data []byte, perm fs.FileMode) error {
	f, err := CreateAtomic(path, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// AtomicFile is a file being written under a temporary name beside its
// final path; Commit renames it into place, Abort removes it.
type AtomicFile struct {
	*os.File
	path string
	done bool
}

// CreateAtomic starts writing path atomically (see WriteFileAtomicPerm),
// for content written piece by piece (a zip).
func CreateAtomic(path string, perm fs.FileMode) (*AtomicFile, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*.tmp")
	if err != nil {
		return nil, err
	}
	if perm != 0o600 {
		if err := tmp.Chmod(perm); err != nil && !isWindows() {
			tmp.Close()
			os.Remove(tmp.Name())
			return nil, err
		}
	}
	return &AtomicFile{File: tmp, path: path}, nil
}

// Commit flushes the file to disk and renames it over the final path.
func (f *AtomicFile) Commit() error {
	if f.done {
		return os.ErrClosed
	}
	f.done = true
	err := f.File.Sync()
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.File.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.File.Name())
	}
	return err
}

// Abort discards the file; the final path is untouched. After Commit it
// does nothing, so `defer f.Abort()` is safe.
func (f *AtomicFile) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	os.Remove(f.File.Name())
}
