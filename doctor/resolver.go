package doctor

import (
	"sort"

	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/matrix"
)

// MatrixQuery is what doctor asks the compatibility matrix for this
// machine: its NVIDIA GPUs nv, driver, installed toolkits and host
// compilers. matrix.Resolve chooses from them; doctor chooses nothing.
func MatrixQuery(s *machine.Snapshot, nv []machine.GPU) matrix.Query {
	q := matrix.Query{OS: s.OS.GOOS, Driver: driverVersion(s), DriverCUDA: driverAPI(s), Glibc: s.OS.Glibc, GlibcMinCUDA: glibcNeeds(s)}
	if s.WSL.IsWSL {
		// Linux compilers, but the Windows driver's version numbers.
		q.OS = "wsl"
	}
	for _, g := range nv {
		q.GPUs = append(q.GPUs, matrix.GPUQuery{Name: g.Name, CC: g.ComputeCapability})
	}
	act, _ := activeToolkit(s)
	for i := range s.Toolkits {
		it := installed(&s.Toolkits[i])
		it.Active = act == &s.Toolkits[i]
		q.Installed = append(q.Installed, it)
	}
	if isWindows(s) {
		m := latestMSVC(s)
		q.MSVC = clVersionOf(m)
		if m != nil {
			q.MSVCToolsets = m.Toolsets
			// The instance's other toolsets, which -vcvars_ver can select.
			for _, t := range m.Toolsets {
				if t != m.DefaultToolset && matrix.ToolsetCL(t) != "" {
					q.AvailableMSVC = append(q.AvailableMSVC, t)
				}
			}
		}
	} else if def, sibs := gxx(s); def != nil {
		for _, c := range sibs {
			q.OtherGXX = append(q.OtherGXX, matrix.Compiler{Path: c.Path, Version: c.Version, Major: c.Major})
		}
		q.DefaultGXX = &matrix.Compiler{Path: def.Path, Version: def.Version, Major: def.Major}
		q.GCC = def.Version
		seen := map[int]bool{}
		for _, c := range append([]machine.Compiler{*def}, sibs...) {
			if c.Major > 0 && !seen[c.Major] {
				seen[c.Major] = true
				q.AvailableGCC = append(q.AvailableGCC, c.Major)
			}
		}
		sort.Ints(q.AvailableGCC)
	}
	return q
}

// installed is a toolkit as the matrix weighs it.
func installed(tk *machine.CUDAToolkit) matrix.InstalledToolkit {
	return matrix.InstalledToolkit{Version: tk.Version, Root: tk.Root, GPUArchs: tk.GPUArchs, Distro: containsStr(tk.Found, "debian")}
}
