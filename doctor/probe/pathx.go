package probe

import (
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Paths are handled in the target OS's syntax, not the host's: a Windows
// snapshot replayed on Linux must still split C:\a;C:\b and join with '\'.

func isWin(goos string) bool { return goos == "windows" }

func sepOf(goos string) string {
	if isWin(goos) {
		return `\`
	}
	return "/"
}

// joinPath joins elements with the target's separator, dropping duplicate separators.
func joinPath(goos string, elem ...string) string {
	sep := sepOf(goos)
	var b strings.Builder
	for _, e := range elem {
		if e == "" {
			continue
		}
		if isWin(goos) {
			e = strings.ReplaceAll(e, "/", `\`)
		}
		if b.Len() > 0 {
			cur := b.String()
			if !strings.HasSuffix(cur, sep) {
				b.WriteString(sep)
			}
			e = strings.TrimLeft(e, sep)
		}
		b.WriteString(e)
	}
	return b.String()
}

// cleanDir trims trailing separators (but keeps "C:\" and "/") and, on
// Windows, surrounding quotes that users put into PATH entries.
func cleanDir(goos, d string) string {
	d = strings.TrimSpace(d)
	if isWin(goos) {
		d = strings.Trim(d, `"`)
		d = strings.ReplaceAll(d, "/", `\`)
		for len(d) > 3 && strings.HasSuffix(d, `\`) {
			d = d[:len(d)-1]
		}
		return d
	}
	for len(d) > 1 && strings.HasSuffix(d, "/") {
		d = d[:len(d)-1]
	}
	return d
}

func baseName(goos, p string) string {
	if isWin(goos) {
		p = strings.ReplaceAll(p, "/", `\`)
		if i := strings.LastIndex(p, `\`); i >= 0 {
			return p[i+1:]
		}
		return p
	}
	return path.Base(p)
}

func dirName(goos, p string) string {
	if isWin(goos) {
		p = strings.ReplaceAll(p, "/", `\`)
		i := strings.LastIndex(p, `\`)
		if i < 0 {
			return ""
		}
		if i == 2 && p[1] == ':' {
			return p[:3]
		}
		return p[:i]
	}
	return path.Dir(p)
}

// samePath compares paths the way the target OS does (case-insensitive on Windows).
func samePath(goos, a, b string) bool {
	a, b = cleanDir(goos, a), cleanDir(goos, b)
	if isWin(goos) {
		return strings.EqualFold(a, b)
	}
	return a == b
}

func pathListSep(goos string) string {
	if isWin(goos) {
		return ";"
	}
	return ":"
}

// splitPathList splits PATH-like lists, keeping empty entries out.
func splitPathList(goos, list string) []string {
	var out []string
	for _, e := range strings.Split(list, pathListSep(goos)) {
		e = cleanDir(goos, e)
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}

func isDir(fsys FS, name string) bool {
	fi, err := fsys.Stat(name)
	return err == nil && fi.IsDir()
}

// globDir returns the entries of dir whose names match pattern (path.Match
// syntax; case-insensitive on Windows), as full paths, sorted.
func globDir(fsys FS, goos, dir, pattern string) []string {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		n, p := name, pattern
		if isWin(goos) {
			n, p = strings.ToLower(n), strings.ToLower(p)
		}
		if ok, _ := path.Match(p, n); ok {
			out = append(out, joinPath(goos, dir, name))
		}
	}
	sort.Strings(out)
	return out
}

// dirEntries is the names in dir, or nil.
func dirEntries(fsys FS, dir string) []fs.DirEntry {
	ents, _ := fsys.ReadDir(dir)
	return ents
}
