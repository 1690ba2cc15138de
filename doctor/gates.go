package doctor

import (
	_ "embed"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/llamactl/llamactl/internal/version"
	"github.com/llamactl/llamactl/matrix"
)

// gates.json holds the version gates the checks apply beyond the
// compatibility matrix (glibc, CMake, the lowest compute capability), each
// with its source. The per-toolkit facts (targets, host compiler limits),
// the driver floors and the MSVC STL's CUDA check come from the matrix
// (matrix.Default()), so doctor and `llamactl matrix` cannot drift.
//
//go:embed data/gates.json
var gatesJSON []byte

// toolkitRow is what the checks need of one CUDA minor, taken from the
// matrix's release that represents it (the minor's newest update).
type toolkitRow struct {
	CUDA          string // "12.4"
	GCCMax        int    // newest gcc major nvcc accepts; 0 when the matrix does not know
	MSCVerMin     int    // oldest _MSC_VER nvcc accepts; 0 when unknown
	MSCVerMaxExcl int    // _MSC_VER nvcc rejects from; 0 when unknown
	SM            []int  // real targets
	Release       string // the matrix release read ("12.4.1")
}

type gateFile struct {
	GlibcMath struct {
		GlibcMin  string `json:"glibc_min"`
		CUDAMin   string `json:"cuda_min"`
		FailureID string `json:"failure_id"`
	} `json:"glibc_math"`
	CUDARuntimeDLLs []struct {
		CUDAMajor int      `json:"cuda_major"`
		DLLs      []string `json:"dlls"`
		DLLDir    string   `json:"dll_dir"` // under the toolkit root
	} `json:"cuda_runtime_dlls"`
	Thresholds struct {
		DiskFullMiB     uint64  `json:"disk_full_mib"`
		DiskLowMiB      uint64  `json:"disk_low_mib"`
		VRAMLowMiB      uint64  `json:"vram_low_mib"`
		VRAMLowFraction float64 `json:"vram_low_fraction"`
		WindowsPathLong int     `json:"windows_path_long_chars"`
	} `json:"thresholds"`
	CMakeMinNative string       `json:"cmake_min_native"`
	CUDAMinNative  string       `json:"cuda_min_native"`
	MinCC          string       `json:"min_cc"`
	Toolkits       []toolkitRow `json:"-"` // from the matrix, oldest first
}

var (
	gatesOnce sync.Once
	gates     gateFile
)

func g() *gateFile {
	gatesOnce.Do(func() {
		if err := json.Unmarshal(gatesJSON, &gates); err != nil {
			panic("doctor/data/gates.json: " + err.Error()) // validated by tests
		}
		gates.Toolkits = matrixRows(matrix.Default())
	})
	return &gates
}

// matrixRows is one row per CUDA minor the matrix knows, oldest first.
func matrixRows(m *matrix.Matrix) []toolkitRow {
	var rows []toolkitRow
	for _, mv := range m.Minors() {
		t, ok := m.Toolkit(mv)
		if !ok {
			continue
		}
		r := toolkitRow{CUDA: mv, SM: t.SM, Release: t.Version}
		if n, _, ok := m.GCCMaxMajor(t); ok {
			r.GCCMax = n
		}
		if t.MSCVerMin != nil {
			r.MSCVerMin = *t.MSCVerMin
		}
		if t.MSCVerMaxExclusive != nil {
			r.MSCVerMaxExcl = *t.MSCVerMaxExclusive
		}
		rows = append(rows, r)
	}
	return rows
}

// toolkitFacts returns the row of a toolkit version's major.minor; for a
// release newer than the table the newest row of the same major stands in.
func toolkitFacts(v string) (toolkitRow, bool) {
	mm := version.MajorMinor(v)
	var best *toolkitRow
	for i, r := range g().Toolkits {
		if r.CUDA == mm {
			return r, true
		}
		if version.Major(r.CUDA) == version.Major(mm) && version.Compare(r.CUDA, mm) < 0 {
			best = &g().Toolkits[i]
		}
	}
	if best != nil && version.Major(mm) >= 13 {
		return *best, true
	}
	return toolkitRow{}, false
}

// driverFloor is the minimum driver branch for a CUDA major
// (minor-version compatibility, matrix/data/rules.json families); "" when
// the matrix has no rule for that major.
func driverFloor(cudaMajor int) string {
	if f := matrix.Default().Family(cudaMajor); f != nil && f.BranchFloor > 0 {
		return strconv.Itoa(f.BranchFloor)
	}
	return ""
}

// stlMinCUDA is the oldest CUDA the MSVC STL of cl version accepts ("" when
// no gate): the STL rule (matrix/data/rules.json stl, error STL1002) with
// the highest _MSC_VER floor at or below cl's. A cl newer than every rule
// keeps the newest rule, since the STL never relaxes its check.
func stlMinCUDA(cl string) string {
	msc := matrix.MSCVer(cl)
	need, best := "", 0
	for _, r := range matrix.Default().STL {
		if r.MSCVerMin <= msc && r.MSCVerMin >= best {
			need, best = r.RequiresCUDA, r.MSCVerMin
		}
	}
	return need
}

// --- versions ---
