package doctor

import (
	"path"
	"strings"

	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/machine"
)

// Section G of docs/doctor.md\'s "Every check": PATH order and library resolution.

// isGnuLink says whether a link.exe is a GNU coreutils one (Git, MSYS2,
// Cygwin, conda), not MSVC's linker.
func isGnuLink(p string) bool {
	l := strings.ToLower(strings.ReplaceAll(p, "/", `\`))
	return strings.Contains(l, `\usr\bin\`) || strings.Contains(l, `\git\`) || strings.Contains(l, "msys") ||
		strings.Contains(l, "cygwin") || strings.Contains(l, `\library\bin\`)
}

func checkPathTools(s *machine.Snapshot) []Finding {
	var out []Finding
	if isWindows(s) {
		links := hits(s, "link")
		if len(links) > 0 && isGnuLink(links[0].Path) {
			msvc := ""
			for _, h := range links[1:] {
				if !isGnuLink(h.Path) {
					msvc = h.Path
					break
				}
			}
			out = append(out, emit(s, "path.tools", "gnu-link", "link", links[0].Path, "dir", dirOf(links[0].Path), "msvc", orUnknown(msvc)))
		}
	}
	var lines []string
	for _, t := range []string{"nvcc", "cl", "link", "clang-cl", "cmake", "ninja", "git", "nvidia-smi", "hipcc", "glslc"} {
		hs := hits(s, t)
		if len(hs) == 0 {
			continue
		}
		l := t + ": " + hs[0].Path
		if len(hs) > 1 {
			l = detailText("path-tool-more", "tool", t, "path", hs[0].Path, "count", itoa(len(hs)-1))
		}
		lines = append(lines, l)
	}
	if len(out) == 0 {
		return []Finding{emit(s, "path.tools", "ok", "count", itoa(len(lines))).With(lines...)}
	}
	return out
}

// isStrayDLL says whether a DLL name is one of llama.cpp's/ggml's that
// another distribution can leave on PATH: the same
// patterns the probe searches PATH for, so ggml-vulkan.dll or
// ggml-hip.dll count as well as ggml-cuda.dll.
func isStrayDLL(name string) bool {
	for _, g := range probe.StrayDLLGlobs() {
		if ok, _ := path.Match(strings.ToLower(g), strings.ToLower(name)); ok {
			return true
		}
	}
	return false
}

func checkGGMLStray(s *machine.Snapshot) []Finding {
	if s.Windows == nil || s.Windows.DLLs == nil {
		return []Finding{skip("path.ggml-stray", "not-recorded", "what", "the DLL search")}
	}
	var found []string
	for _, d := range sortedKeys(s.Windows.DLLs) {
		if isStrayDLL(d) {
			found = append(found, s.Windows.DLLs[d]...)
		}
	}
	if len(found) > 0 {
		return []Finding{emit(s, "path.ggml-stray", "found", "dll", found[0], "dir", dirOf(found[0])).With(found...)}
	}
	return []Finding{emit(s, "path.ggml-stray", "ok")}
}

func checkPathDLLs(s *machine.Snapshot) []Finding {
	if s.Windows == nil || s.Windows.DLLs == nil {
		return []Finding{skip("path.dlls", "not-recorded", "what", "the DLL search")}
	}
	var out []Finding
	// nvcuda.dll and nvml.dll belong to the driver in System32.
	sys := s.Windows.SystemDir
	if sys == "" {
		sys = `C:\Windows\System32`
	}
	for _, d := range []string{"nvcuda.dll", "nvml.dll", "OpenCL.dll", "vulkan-1.dll"} {
		c, searched := s.Windows.DLLs[d]
		if len(c) == 0 {
			// Searched and not found (snapshots record that as an empty
			// list): without nvcuda.dll no CUDA program starts.
			if d == "nvcuda.dll" && searched && len(nvidiaGPUs(s)) > 0 {
				out = append(out, emit(s, "path.dlls", "nvcuda-missing", "sys", sys))
			}
			continue
		}
		if !under(s, c[0], sys) && !(d == "nvml.dll" && strings.Contains(strings.ToLower(c[0]), `nvidia corporation\nvsmi`)) {
			out = append(out, emit(s, "path.dlls", "driver-dll-shadowed", "dll", d, "winner", c[0], "sys", sys).With(c...))
		}
	}
	if len(out) == 0 {
		var lines, missing []string
		for _, k := range sortedKeys(s.Windows.DLLs) {
			if c := s.Windows.DLLs[k]; len(c) > 0 {
				lines = append(lines, k+": "+c[0])
			} else {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			lines = append(lines, "not found: "+strings.Join(missing, ", "))
		}
		return []Finding{emit(s, "path.dlls", "ok").With(lines...)}
	}
	return out
}

// cudaBinDirs are the PATH entries that are some toolkit's bin directory.
func cudaBinDirs(s *machine.Snapshot) (dirs []string, versions []string) {
	for _, d := range pathDirs(s) {
		for _, tk := range s.Toolkits {
			root := strings.TrimRight(tk.Root, `\/`)
			if root == "" || samePath(s, root, "/usr") {
				continue
			}
			sep := "/"
			if isWindows(s) {
				sep = `\`
			}
			if samePath(s, d, root+sep+"bin") {
				dirs = append(dirs, d)
				versions = append(versions, tk.Version)
			}
		}
	}
	return dirs, versions
}

func checkMultiCUDA(s *machine.Snapshot) []Finding {
	dirs, versions := cudaBinDirs(s)
	if len(dirs) < 2 {
		return []Finding{emit(s, "path.multi-cuda", "ok", "count", itoa(len(dirs)))}
	}
	act, how := activeToolkit(s)
	if act != nil && how == "CUDA_PATH" {
		want := strings.TrimRight(act.Root, `\/`)
		if !under(s, dirs[0], want) {
			return []Finding{emit(s, "path.multi-cuda", "order", "first", dirs[0], "firstv", versions[0], "version", act.Version,
				"bin", want+`\bin`).With(dirs...)}
		}
	}
	return []Finding{emit(s, "path.multi-cuda", "several", "count", itoa(len(dirs)), "first", dirs[0]).With(dirs...)}
}

func checkPathHygiene(s *machine.Snapshot) []Finding {
	if len(s.Path) == 0 {
		return []Finding{skip("path.hygiene", "not-recorded", "what", "PATH")}
	}
	var missing, dups, odd []string
	seen := map[string]bool{}
	total := 0
	for _, p := range s.Path {
		total += len(p.Dir) + 1
		n := normPath(s, p.Dir)
		switch {
		case strings.Contains(p.Dir, `"`) || (isWindows(s) && strings.Count(p.Dir, "%") >= 2):
			odd = append(odd, p.Dir)
		case !p.Exists:
			missing = append(missing, p.Dir)
		}
		if seen[n] && !containsStr(dups, p.Dir) {
			dups = append(dups, p.Dir)
		}
		seen[n] = true
	}
	var out []Finding
	if len(odd) > 0 {
		out = append(out, emit(s, "path.hygiene", "odd", "count", itoa(len(odd))).With(odd...))
	}
	// cmd.exe and vcvarsall choke on very long PATH values.
	if isWindows(s) && total > g().Thresholds.WindowsPathLong {
		out = append(out, emit(s, "path.hygiene", "long", "len", itoa(total)))
	}
	if len(missing) > 0 {
		out = append(out, emit(s, "path.hygiene", "missing", "count", itoa(len(missing)), "dirs", shortList(missing)).With(missing...))
	}
	if len(dups) > 0 {
		out = append(out, emit(s, "path.hygiene", "dups", "count", itoa(len(dups)), "dirs", shortList(dups)).With(dups...))
	}
	if len(out) == 0 {
		return []Finding{emit(s, "path.hygiene", "ok", "count", itoa(len(s.Path)))}
	}
	return out
}

func checkLdLib(s *machine.Snapshot) []Finding {
	ld, set := env(s, "LD_LIBRARY_PATH")
	if !set || strings.TrimSpace(ld) == "" {
		return []Finding{emit(s, "path.ldlib", "unset")}
	}
	var conda []string
	for _, d := range strings.Split(ld, ":") {
		l := strings.ToLower(d)
		if strings.Contains(l, "conda") || strings.Contains(l, "miniforge") || strings.Contains(l, "mamba") {
			conda = append(conda, d)
		}
	}
	if len(conda) > 0 {
		return []Finding{emit(s, "path.ldlib", "conda", "dir", conda[0]).With(conda...)}
	}
	return []Finding{emit(s, "path.ldlib", "ok", "value", ld)}
}

// shortList names up to three entries in a summary ("a, b, c and 2 more");
// the details carry them all.
func shortList(xs []string) string {
	if len(xs) <= 3 {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:3], ", ") + " and " + itoa(len(xs)-3) + " more"
}
