package probe

import (
	"context"
	"strings"

	"github.com/llamactl/llamactl/machine"
)

// gatherWSL reads the WSL facts and, on any Linux,
// every libcuda the loader can see: LD_LIBRARY_PATH first (it wins, and a
// stub libcuda there breaks every CUDA program), then ldconfig's cache and
// the WSL library dir.
func gatherWSL(ctx context.Context, g *gctx) func(*machine.Snapshot) {
	var w machine.WSL
	if b, err := g.d.FS.ReadFile("/proc/version"); err == nil {
		w.Version = IsWSLKernel(string(b))
		w.IsWSL = w.Version > 0
	}
	if !w.IsWSL && lookupEnv(g.d, "WSL_DISTRO_NAME") != "" {
		w.IsWSL, w.Version = true, 2
	}
	var libs []string
	addLib := func(p string) {
		if !containsExact(libs, p) {
			libs = append(libs, p)
		}
	}
	for _, d := range splitPathList("linux", lookupEnv(g.d, "LD_LIBRARY_PATH")) {
		for _, p := range globDir(g.d.FS, "linux", d, "libcuda.so*") {
			addLib(p)
		}
	}
	if ld := ldconfigPath(g); ld != "" {
		if _, out, ok := g.run(ctx, ld, "-p"); ok {
			for _, p := range ParseLdconfigLibs(out, "libcuda.so") {
				addLib(p)
			}
		}
	}
	if w.IsWSL {
		for _, p := range globDir(g.d.FS, "linux", facts.WSL.LibDir, "libcuda.so*") {
			addLib(p)
		}
	}
	w.LibcudaPaths = libs
	if dpkg := searchPath(g.d, g.base.Path, "dpkg"); len(dpkg) > 0 {
		if _, out, ok := g.run(ctx, dpkg[0], "-l"); ok {
			w.DriverPackages = ParseDpkgInstalled(out, facts.WSL.DriverPackagePrefixes)
		}
	}
	for _, e := range g.base.Path {
		if len(e.Dir) > 6 && strings.HasPrefix(e.Dir, "/mnt/") && e.Dir[6] == '/' {
			w.WindowsPathInterop = true
		}
	}
	return func(s *machine.Snapshot) { s.WSL = w }
}

func ldconfigPath(g *gctx) string {
	for _, p := range []string{"/sbin/ldconfig", "/usr/sbin/ldconfig"} {
		if isFile(g.d.FS, p) {
			return p
		}
	}
	if hits := searchPath(g.d, g.base.Path, "ldconfig"); len(hits) > 0 {
		return hits[0]
	}
	return ""
}

// Registry keys doctor records on Windows.
const (
	regUserEnv   = `HKCU\Environment`
	regSystemEnv = `HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment`
)

// gatherWindows records the registry facts, the user/system origin of PATH
// entries, and where each CUDA/NVIDIA DLL would be loaded from.
func gatherWindows(ctx context.Context, g *gctx) func(*machine.Snapshot) {
	w := &machine.Windows{SystemDir: systemDir(g.d), PATHEXT: lookupEnv(g.d, "PATHEXT")}
	w.DeveloperPrompt = lookupEnv(g.d, "VSCMD_VER") != "" || lookupEnv(g.d, "VCINSTALLDIR") != ""
	w.Registry = map[string]string{}
	sources := map[string]string{} // lower-case dir -> user/system
	if r := g.d.Registry; r != nil {
		read := func(key, name string) string {
			v, err := r.Value(key, name)
			if err != nil {
				if !isNotFound(err) {
					g.errorf("registry %s\\%s: %v", key, name, err)
				}
				return ""
			}
			w.Registry[key+`\`+name] = v
			return v
		}
		w.Build = read(winNTKey, "CurrentBuild")
		if ubr := read(winNTKey, "UBR"); ubr != "" && w.Build != "" {
			w.Build += "." + ubr
		}
		read(winNTKey, "ProductName")
		read(winNTKey, "DisplayVersion")
		for _, src := range []struct{ key, name string }{{regSystemEnv, "system"}, {regUserEnv, "user"}} {
			p := read(src.key, "Path")
			for _, d := range splitPathList("windows", p) {
				k := strings.ToLower(expandWinVars(g.d, d))
				if _, ok := sources[k]; !ok {
					sources[k] = src.name
				}
			}
		}
		key := facts.CUDARegistryKey.Key
		if subs, err := r.SubKeys(key); err == nil {
			for _, sk := range subs {
				read(key+`\`+sk, "InstallDir")
			}
		}
		if names, err := r.ValueNames(facts.OpenCL.WindowsVendorsKey); err == nil {
			for _, n := range names {
				read(facts.OpenCL.WindowsVendorsKey, n)
			}
		}
	}
	if len(w.Registry) == 0 {
		w.Registry = nil
	}
	w.DLLs = dllCandidates(g)
	return func(s *machine.Snapshot) {
		s.Windows = w
		for i := range s.Path {
			if src, ok := sources[strings.ToLower(expandWinVars(g.d, s.Path[i].Dir))]; ok {
				s.Path[i].Source = src
			}
		}
	}
}

// dllCandidates follows the standard search order for a desktop app without
// SafeDllSearchMode changes: the app's dir (unknown here:
// the engine's, resolved at run time), System32, the 16-bit System dir, the
// Windows dir, the current dir (skipped: doctor's is not the engine's), then
// PATH in order. Every existing file is listed; the first is what loads.
// Every name of facts.json's list is a key, so checks can tell "not found"
// (empty list) from "not searched" (absent, in older snapshots).
func dllCandidates(g *gctx) map[string][]string {
	const w = "windows"
	winDir := dirName(w, systemDir(g.d))
	dirs := []string{systemDir(g.d), joinPath(w, winDir, "System"), winDir}
	for _, e := range g.base.Path {
		if e.Exists {
			dirs = append(dirs, expandWinVars(g.d, e.Dir))
		}
	}
	out := map[string][]string{}
	for _, name := range facts.WindowsDLLs.Names {
		out[name] = []string{} // searched: an empty list is "not found", an absent name "not searched"
		for _, d := range dirs {
			if p := joinPath(w, d, name); isFile(g.d.FS, p) && !containsFold(out[name], p) {
				out[name] = append(out[name], p)
			}
		}
	}
	// Stray ggml/llama DLLs: only PATH matters (they are never in System32 legitimately).
	for _, e := range g.base.Path {
		if !e.Exists {
			continue
		}
		for _, pat := range facts.WindowsDLLs.Globs {
			for _, p := range globDir(g.d.FS, w, expandWinVars(g.d, e.Dir), pat) {
				n := strings.ToLower(baseName(w, p))
				if !containsFold(out[n], p) {
					out[n] = append(out[n], p)
				}
			}
		}
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
