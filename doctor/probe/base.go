package probe

import (
	"sort"
	"strings"

	"github.com/llamactl/llamactl/machine"
)

// gatherBase fills what every gatherer reads: env, PATH and the tool hits.
// It only reads the environment and stats files, so it runs before the
// concurrent gatherers.
func gatherBase(d *Deps, s *machine.Snapshot) {
	s.Env = allowedEnv(d)
	path := lookupEnv(d, "PATH")
	for _, dir := range splitPathList(d.GOOS, path) {
		s.Path = append(s.Path, machine.PathEntry{Dir: dir, Exists: isDir(d.FS, expandWinVars(d, dir))})
	}
	s.Tools = map[string][]machine.ToolHit{}
	for _, name := range facts.Tools.Names {
		if !isWin(d.GOOS) && containsExact(facts.Tools.WindowsOnly, name) {
			continue // Linux's /usr/bin/link is coreutils, not a linker
		}
		for _, p := range searchPath(d, s.Path, name) {
			s.Tools[name] = append(s.Tools[name], machine.ToolHit{Path: p})
		}
	}
	if len(s.Tools) == 0 {
		s.Tools = nil
	}
}

// lookupEnv reads a variable; on Windows names are case-insensitive ("Path").
func lookupEnv(d *Deps, name string) string {
	if v := d.Getenv(name); v != "" {
		return v
	}
	if isWin(d.GOOS) {
		for _, kv := range d.Environ() {
			k, v, ok := strings.Cut(kv, "=")
			if ok && strings.EqualFold(k, name) {
				return v
			}
		}
	}
	return ""
}

func allowedEnv(d *Deps) map[string]string {
	names := map[string]bool{}
	for _, n := range facts.EnvAllowlist.Names {
		names[strings.ToUpper(n)] = true
	}
	env := map[string]string{}
	for _, kv := range d.Environ() {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		uk := k
		if isWin(d.GOOS) {
			uk = strings.ToUpper(k)
		}
		keep := names[strings.ToUpper(k)] && (isWin(d.GOOS) || containsExact(facts.EnvAllowlist.Names, k))
		for _, p := range facts.EnvAllowlist.Prefixes {
			if strings.HasPrefix(uk, p) {
				keep = true
			}
		}
		if keep {
			env[k] = v
		}
	}
	if len(env) == 0 {
		return nil
	}
	return env
}

func containsExact(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// expandWinVars expands %VAR% in Windows PATH entries (REG_EXPAND_SZ
// leftovers such as %SystemRoot%\system32); other systems are unchanged.
func expandWinVars(d *Deps, s string) string {
	if !isWin(d.GOOS) || !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "%")
		if i < 0 {
			break
		}
		j := strings.Index(s[i+1:], "%")
		if j < 0 {
			break
		}
		name := s[i+1 : i+1+j]
		v := lookupEnv(d, name)
		if v == "" {
			v = "%" + name + "%"
		}
		b.WriteString(s[:i])
		b.WriteString(v)
		s = s[i+2+j:]
	}
	b.WriteString(s)
	return b.String()
}

// pathExts is PATHEXT's extensions, lower-case, in order.
func pathExts(d *Deps) []string {
	pe := lookupEnv(d, "PATHEXT")
	if pe == "" {
		pe = facts.PathextDefault.Value
	}
	var out []string
	for _, e := range strings.Split(pe, ";") {
		e = strings.ToLower(strings.TrimSpace(e))
		if e != "" && strings.HasPrefix(e, ".") {
			out = append(out, e)
		}
	}
	return out
}

// searchPath returns every file that running `name` could resolve to, in
// PATH order: what the shell would run first is element 0. On Windows every
// PATHEXT extension is tried in each directory (cmd's search order); on
// Linux inside WSL, Windows executables (name.exe) on /mnt/ paths count too,
// since WSL interop runs them.
func searchPath(d *Deps, path []machine.PathEntry, name string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		k := p
		if rp, err := d.FS.Realpath(p); err == nil {
			k = rp // /bin/cmake and /usr/bin/cmake are one file on merged-/usr systems
		}
		if isWin(d.GOOS) {
			k = strings.ToLower(k)
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	for _, e := range path {
		if !e.Exists {
			continue
		}
		dir := expandWinVars(d, e.Dir)
		if isWin(d.GOOS) {
			for _, ext := range pathExts(d) {
				if p := joinPath(d.GOOS, dir, name+ext); isFile(d.FS, p) {
					add(p)
				}
			}
			continue
		}
		if p := joinPath(d.GOOS, dir, name); isExecutable(d.FS, p) {
			add(p)
		}
		if strings.HasPrefix(dir, "/mnt/") {
			if p := joinPath(d.GOOS, dir, name+".exe"); isFile(d.FS, p) {
				add(p)
			}
		}
	}
	return out
}

// isExecutable is a file with an execute bit (what a Unix shell would run).
func isExecutable(fsys FS, p string) bool {
	fi, err := fsys.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

func isFile(fsys FS, p string) bool {
	fi, err := fsys.Stat(p)
	return err == nil && !fi.IsDir()
}

// firstTool is the first hit of a tool on PATH, or "".
func firstTool(s *machine.Snapshot, name string) string {
	if hits := s.Tools[name]; len(hits) > 0 {
		return hits[0].Path
	}
	return ""
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
