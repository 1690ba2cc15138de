package doctor

import (
	"sort"

	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/matrix"
)

// MatrixQuery is what doctor asks the compatibility matrix for this machine.
func MatrixQuery(s *machine.Snapshot, nv []machine.GPU) matrix.Query {
	q := matrix.Query{OS: s.OS.GOOS, Driver: driverVersion(s)}
	if s.WSL.IsWSL {
		// Linux compilers, but the Windows driver's version numbers.
		q.OS = "wsl"
	}
	for _, g := range nv {
		q.GPUs = append(q.GPUs, matrix.GPUQuery{Name: g.Name, CC: g.ComputeCapability})
	}
	for _, tk := range s.Toolkits {
		q.Toolkits = append(q.Toolkits, tk.Version)
	}
	if isWindows(s) {
		m := latestMSVC(s)
		q.MSVC = clVersionOf(m)
		if m != nil {
			// The instance's other toolsets, which -vcvars_ver can select.
			for _, t := range m.Toolsets {
				if t != m.DefaultToolset && matrix.ToolsetCL(t) != "" {
					q.AvailableMSVC = append(q.AvailableMSVC, t)
				}
			}
		}
	} else if def, sibs := gxx(s); def != nil {
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

// resolveWithMatrix asks the compatibility matrix (matrix/api.go contract).
func resolveWithMatrix(s *machine.Snapshot, nv []machine.GPU) *matrix.Resolution {
	r := matrix.Default().Resolve(MatrixQuery(s, nv))
	return &r
}
