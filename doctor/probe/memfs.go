package probe

import (
	"io/fs"
	"sort"
	"strings"
	"time"
)

// MemFS is an in-memory file tree in the target OS's path syntax, built from
// a recording. Directories are implied by the files under them; a key ending
// in a separator is an empty directory. On Windows, names match
// case-insensitively as NTFS does.
type MemFS struct {
	goos  string
	files map[string]memFile // normalized path -> file
	links map[string]string  // normalized link path -> target (absolute)
}

type memFile struct {
	name string // as recorded
	data []byte
	dir  bool
	err  error // injected error (e.g. permission denied)
}

// NewMemFS builds a tree from path -> content. Keys ending in "/" or "\" are
// directories.
func NewMemFS(goos string, files map[string]string) *MemFS {
	m := &MemFS{goos: goos, files: map[string]memFile{}, links: map[string]string{}}
	for p, data := range files {
		dir := strings.HasSuffix(p, "/") || strings.HasSuffix(p, `\`)
		clean := cleanDir(goos, p)
		m.files[m.norm(clean)] = memFile{name: clean, data: []byte(data), dir: dir}
		// imply parents
		for d := dirName(goos, clean); d != "" && d != "."; d = dirName(goos, d) {
			k := m.norm(d)
			if _, ok := m.files[k]; ok {
				if !m.files[k].dir {
					break
				}
			}
			m.files[k] = memFile{name: d, dir: true}
			if d == "/" || (len(d) == 3 && d[1] == ':') {
				break
			}
		}
	}
	return m
}

// SetError makes every access to name fail with err (an unreadable file or
// directory on the recorded machine).
func (m *MemFS) SetError(name string, err error) {
	k := m.norm(cleanDir(m.goos, name))
	f := m.files[k]
	f.name = cleanDir(m.goos, name)
	f.err = err
	m.files[k] = f
}

func (m *MemFS) norm(p string) string {
	if isWin(m.goos) {
		return strings.ToLower(strings.ReplaceAll(p, "/", `\`))
	}
	return p
}

// AddLink records a symbolic link: name resolves to target (a file or a
// directory, absolute).
func (m *MemFS) AddLink(name, target string) {
	m.links[m.norm(cleanDir(m.goos, name))] = cleanDir(m.goos, target)
}

// Realpath resolves recorded links in every leading component.
func (m *MemFS) Realpath(name string) (string, error) {
	p := cleanDir(m.goos, name)
	for i := 0; i < 40; i++ {
		changed := false
		for cur := p; cur != "" && cur != dirName(m.goos, cur); cur = dirName(m.goos, cur) {
			if t, ok := m.links[m.norm(cur)]; ok {
				p = t + p[len(cur):]
				changed = true
				break
			}
		}
		if !changed {
			if _, ok := m.files[m.norm(p)]; !ok {
				return "", &fs.PathError{Op: "realpath", Path: name, Err: fs.ErrNotExist}
			}
			return p, nil
		}
	}
	return "", &fs.PathError{Op: "realpath", Path: name, Err: fs.ErrInvalid}
}

func (m *MemFS) lookup(op, name string) (memFile, error) {
	if rp, err := m.Realpath(name); err == nil {
		name = rp
	}
	f, ok := m.files[m.norm(cleanDir(m.goos, name))]
	if !ok {
		return memFile{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	if f.err != nil {
		return memFile{}, &fs.PathError{Op: op, Path: name, Err: f.err}
	}
	return f, nil
}

func (m *MemFS) ReadFile(name string) ([]byte, error) {
	f, err := m.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if f.dir {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	return append([]byte(nil), f.data...), nil
}

func (m *MemFS) Stat(name string) (fs.FileInfo, error) {
	f, err := m.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return memInfo{name: baseName(m.goos, cleanDir(m.goos, name)), size: int64(len(f.data)), dir: f.dir}, nil
}

func (m *MemFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := m.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if !f.dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	dir := cleanDir(m.goos, name)
	if rp, err := m.Realpath(dir); err == nil {
		dir = rp
	}
	want := m.norm(dir)
	seen := map[string]bool{}
	var out []fs.DirEntry
	for k, c := range m.files {
		if k == want || m.norm(dirName(m.goos, c.name)) != want {
			continue
		}
		seen[strings.ToLower(baseName(m.goos, c.name))] = true
		out = append(out, fs.FileInfoToDirEntry(memInfo{name: baseName(m.goos, c.name), size: int64(len(c.data)), dir: c.dir}))
	}
	// symbolic links in this directory are entries too (like /usr/local/cuda)
	for l := range m.links {
		if m.norm(dirName(m.goos, l)) != want || seen[strings.ToLower(baseName(m.goos, l))] {
			continue
		}
		if fi, err := m.Stat(l); err == nil {
			out = append(out, fs.FileInfoToDirEntry(fi))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o755
}
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }
