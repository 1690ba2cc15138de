package doctor

import (
	_ "embed"
	"encoding/json"
	"strconv"
	"sync"

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
	CMakeMinNative string `json:"cmake_min_native"`
	CUDAMinNative  string `json:"cuda_min_native"`
	MinCC          string `json:"min_cc"`
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
	})
	return &gates
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
