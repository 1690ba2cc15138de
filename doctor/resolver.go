package doctor

import (
	"sort"

	"github.com/llamactl/llamactl/doctor/snapshot"
	"github.com/llamactl/llamactl/matrix"
)

// MatrixQuery is what doctor asks the compatibility matrix for this machine.
func MatrixQuery(s *snapshot.Snapshot, nv []snapshot.GPU) matrix.Query {
	q := matrix.Query{OS: s.OS.GOOS, Driver: driverVersion(s)}
	for _, g := range nv {
		q.GPUs = append(q.GPUs, matrix.GPUQuery{Name: g.Name, CC: g.ComputeCapability})
	}
	for _, tk := range s.Toolkits {
		q.Toolkits = append(q.Toolkits, tk.Version)
	}
	if isWindows(s) {
		q.MSVC = clVersionOf(latestMSVC(s))
	} else if def, sibs := gxx(s); def != nil {
		q.GCC = def.Version
		seen := map[int]bool{}
		for _, c := range append([]snapshot.Compiler{*def}, sibs...) {
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
func resolveWithMatrix(s *snapshot.Snapshot, nv []snapshot.GPU) *matrix.Resolution {
	r := matrix.Default().Resolve(MatrixQuery(s, nv))
	return &r
}
