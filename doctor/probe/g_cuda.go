package probe

import (
	"context"
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	"github.com/llamactl/llamactl/internal/version"
	"github.com/llamactl/llamactl/machine"
)

type tkCand struct {
	root, real, nvcc string
	found, links     []string
}

// gatherCUDA enumerates every toolkit it can find, from every source
// (PATH, CUDA_PATH*, the registry, the default install folders), and asks
// each nvcc: no one source is trusted alone.
func gatherCUDA(ctx context.Context, g *gctx) func(*machine.Snapshot) {
	goos := g.goos()
	var cands []*tkCand
	add := func(root, nvcc, how string) {
		root = cleanDir(goos, root)
		if root == "" {
			return
		}
		real := root
		if rp, err := g.d.FS.Realpath(root); err == nil {
			real = rp
		}
		for _, c := range cands {
			if samePath(goos, c.real, real) {
				if real != root {
					how = how + " (" + root + ")"
					if !containsExact(c.links, root) {
						c.links = append(c.links, root)
					}
				}
				if !containsExact(c.found, how) {
					c.found = append(c.found, how)
				}
				if c.nvcc == "" {
					c.nvcc = nvcc
				}
				return
			}
		}
		c := &tkCand{root: real, real: real, nvcc: nvcc}
		if real != root {
			// report the real toolkit dir; the link is how it was found
			how = how + " (" + root + ")"
			c.links = []string{root}
		}
		c.found = []string{how}
		cands = append(cands, c)
	}
	nvccName := "nvcc"
	if isWin(goos) {
		nvccName = "nvcc.exe"
	}
	envNames := []string{"CUDA_PATH"}
	if !isWin(goos) {
		envNames = append(envNames, "CUDA_HOME")
	}
	for _, k := range envNames {
		if v := lookupEnv(g.d, k); v != "" {
			add(v, "", k)
		}
	}
	for _, k := range sortedKeys(g.base.Env) {
		if strings.HasPrefix(strings.ToUpper(k), "CUDA_PATH_V") {
			add(g.base.Env[k], "", strings.ToUpper(k))
		}
	}
	debianRoot := facts.CUDADefaultDirs.DebianRoot
	if isWin(goos) {
		if r := g.d.Registry; r != nil {
			key := facts.CUDARegistryKey.Key
			subs, err := r.SubKeys(key)
			if err != nil && !isNotFound(err) {
				g.errorf("registry %s: %v", key, err)
			}
			for _, sk := range subs {
				dir, err := r.Value(key+`\`+sk, "InstallDir")
				if err == nil && dir != "" {
					add(dir, "", "registry")
				} else if err != nil && !isNotFound(err) {
					g.errorf("registry %s\\%s: %v", key, sk, err)
				}
			}
		}
		bases := facts.CUDADefaultDirs.Windows
		if pf := lookupEnv(g.d, "ProgramFiles"); pf != "" {
			bases = append([]string{joinPath(goos, pf, "NVIDIA GPU Computing Toolkit", "CUDA")}, bases...)
		}
		for _, base := range bases {
			for _, d := range globDir(g.d.FS, goos, base, "v*") {
				if isDir(g.d.FS, d) {
					add(d, "", "default-dir")
				}
			}
		}
	} else {
		for _, pat := range facts.CUDADefaultDirs.LinuxGlobs {
			for _, d := range globDir(g.d.FS, goos, dirName(goos, pat), baseName(goos, pat)) {
				if isDir(g.d.FS, d) && isFile(g.d.FS, joinPath(goos, d, "bin", "nvcc")) {
					add(d, "", "default-dir")
				}
			}
		}
		if isFile(g.d.FS, facts.CUDADefaultDirs.DebianNVCC) && isDir(g.d.FS, debianRoot) {
			add(debianRoot, facts.CUDADefaultDirs.DebianNVCC, "debian")
		}
	}
	for _, h := range g.base.Tools["nvcc"] {
		if !isWin(goos) && strings.HasSuffix(strings.ToLower(h.Path), ".exe") {
			continue // a Windows nvcc.exe seen from WSL is not a Linux toolkit
		}
		bin := dirName(goos, h.Path)
		root := dirName(goos, bin)
		if rp, err := g.d.FS.Realpath(h.Path); err == nil && !isWin(goos) && samePath(goos, rp, facts.CUDADefaultDirs.DebianNVCC) && isDir(g.d.FS, debianRoot) {
			root = debianRoot
		}
		add(root, h.Path, "PATH")
	}

	tks := make([]machine.CUDAToolkit, len(cands))
	each(len(cands), func(i int) {
		c := cands[i]
		tk := machine.CUDAToolkit{Root: c.root, Found: c.found, Links: c.links}
		nvcc := c.nvcc
		if nvcc == "" {
			if p := joinPath(goos, c.root, "bin", nvccName); isFile(g.d.FS, p) {
				nvcc = p
			}
		}
		tk.NVCC = nvcc
		if nvcc != "" {
			if _, out, ok := g.run(ctx, nvcc, "--version"); ok {
				tk.Version = ParseNvccVersion(out)
				if tk.Version == "" {
					g.errorf("%s --version printed no CUDA release: %q", nvcc, truncate(firstLine(out), 200))
				}
			}
			if _, out, ok := g.run(ctx, nvcc, "--list-gpu-arch"); ok {
				tk.GPUArchs = ParseListGPUArch(out)
			}
		}
		if tk.Version == "" {
			tk.Version = versionFromFiles(g, c.root)
		}
		tk.DLLDir, tk.HasCudart, tk.HasCublas = cudaLibs(g, c.root)
		if tk.Version == "" && tk.NVCC == "" && !tk.HasCudart {
			// CUDA_PATH_V12_4 pointing at a deleted toolkit is itself a fact.
			tk.Missing = !isDir(g.d.FS, c.root)
		}
		tk.VSIntegration = len(vsCUDAIntegrations(g, tk.Version)) > 0
		tks[i] = tk
	})
	sort.SliceStable(tks, func(i, j int) bool {
		if tks[i].Version != tks[j].Version {
			return version.Less(tks[j].Version, tks[i].Version)
		}
		return tks[i].Root < tks[j].Root
	})
	return func(s *machine.Snapshot) { s.Toolkits = tks }
}

var reVersionTxt = regexp.MustCompile(`CUDA Version (\d+\.\d+(?:\.\d+)?)`)

// versionFromFiles reads version.json (CUDA 11.1+) or version.txt (older).
func versionFromFiles(g *gctx, root string) string {
	if b, err := g.d.FS.ReadFile(joinPath(g.goos(), root, "version.json")); err == nil {
		var v struct {
			CUDA struct {
				Version string `json:"version"`
			} `json:"cuda"`
		}
		if json.Unmarshal(b, &v) == nil && v.CUDA.Version != "" {
			return v.CUDA.Version
		}
	}
	if b, err := g.d.FS.ReadFile(joinPath(g.goos(), root, "version.txt")); err == nil {
		if m := reVersionTxt.FindStringSubmatch(string(b)); m != nil {
			return m[1]
		}
	}
	return ""
}

// cudaLibs finds the runtime and cuBLAS libraries: on Windows in bin\ (or
// bin\x64\ since CUDA 13), on Linux in lib64 / targets.
func cudaLibs(g *gctx, root string) (dllDir string, cudart, cublas bool) {
	goos := g.goos()
	if isWin(goos) {
		for _, d := range []string{joinPath(goos, root, "bin"), joinPath(goos, root, "bin", "x64")} {
			rt := len(globDir(g.d.FS, goos, d, "cudart64_*.dll")) > 0
			bl := len(globDir(g.d.FS, goos, d, "cublas64_*.dll")) > 0
			if rt || bl {
				return d, rt, bl
			}
		}
		return "", false, false
	}
	dirs := []string{joinPath(goos, root, "lib64"), joinPath(goos, root, "lib")}
	dirs = append(dirs, globDir(g.d.FS, goos, joinPath(goos, root, "targets"), "*")...)
	for i, d := range dirs {
		if i >= 2 {
			dirs[i] = joinPath(goos, d, "lib")
		}
	}
	if cleanDir(goos, root) == facts.CUDADefaultDirs.DebianRoot {
		dirs = append(dirs, "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu")
	}
	for _, d := range dirs {
		rt := len(globDir(g.d.FS, goos, d, "libcudart.so*")) > 0
		bl := len(globDir(g.d.FS, goos, d, "libcublas.so*")) > 0
		if rt || bl {
			return d, rt, bl
		}
	}
	return "", false, false
}
