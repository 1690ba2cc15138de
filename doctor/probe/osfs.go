package probe

import (
	"io/fs"
	"os"
	"path/filepath"
)

// OSFS is the real file system.
type OSFS struct{}

func (OSFS) ReadFile(name string) ([]byte, error)       { return os.ReadFile(name) }
func (OSFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (OSFS) Realpath(name string) (string, error)       { return filepath.EvalSymlinks(name) }
