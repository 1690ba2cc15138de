package doctor

import (
	"slices"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/matrix"
)

// Under WSL the matrix is asked with OS "wsl" (Linux compilers, Windows
// driver numbers); on Windows it gets the instance's other MSVC toolsets, so
// it can answer -vcvars_ver itself.
func TestMatrixQueryWSLAndToolsets(t *testing.T) {
	scs := loadScenarios(t)
	wsl := scs["wsl2-windows-path-nvcc-exe"].Snapshot
	q := MatrixQuery(&wsl, nvidiaGPUs(&wsl))
	if q.OS != "wsl" {
		t.Errorf("WSL query OS = %q, want wsl", q.OS)
	}
	r := matrix.Default().Resolve(MatrixQuery(&wsl, nvidiaGPUs(&wsl)))
	if !slices.ContainsFunc(r.Reasons, func(s string) bool { return strings.Contains(s, "WSL") }) {
		t.Errorf("the matrix did not apply its WSL rule: %q", r.Reasons)
	}
	lin := scs["linux-ci-debian-nvcc11.8-gcc12"].Snapshot
	if q := MatrixQuery(&lin, nil); q.OS != "linux" {
		t.Errorf("Linux query OS = %q", q.OS)
	}

	win := scs["win-vs2022-17.10-cuda12.3-older-toolset"].Snapshot
	q = MatrixQuery(&win, nvidiaGPUs(&win))
	if !slices.Equal(q.AvailableMSVC, []string{"14.39.33519"}) {
		t.Errorf("AvailableMSVC = %q, want the installed older toolset 14.39.33519", q.AvailableMSVC)
	}
	r = matrix.Default().Resolve(MatrixQuery(&win, nvidiaGPUs(&win)))
	if r.MSVCToolset != "14.39" {
		t.Errorf("matrix MSVCToolset = %q, want 14.39 (cl 19.40 is too new for CUDA 12.3)", r.MSVCToolset)
	}
}
