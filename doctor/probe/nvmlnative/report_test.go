package nvmlnative

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/llamactl/llamactl/internal/testutil"
)

func TestCodeName(t *testing.T) {
	cases := map[int]string{0: "ok", 9: "ERROR_DRIVER_NOT_LOADED", 12: "ERROR_LIBRARY_NOT_FOUND", 15: "ERROR_GPU_IS_LOST", 18: "ERROR_LIB_RM_VERSION_MISMATCH", 4: "ERROR_NO_PERMISSION", 777: "ERROR_CODE_777"}
	for code, want := range cases {
		if got := CodeName(code); got != want {
			t.Errorf("CodeName(%d) = %q, want %q", code, got, want)
		}
	}
}

// On the CI machine libnvidia-ml.so.1 is installed (Debian's
// nvidia-cuda-toolkit pulls it in) but there is no GPU and no kernel driver:
// NVML's init answers NVML_ERROR_DRIVER_NOT_LOADED (9).
func TestQueryThisMachine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the recorded NVML fact is this Linux CI machine's")
	}
	if libs, _ := filepath.Glob("/usr/lib/*/libnvidia-ml.so.1"); len(libs) == 0 {
		testutil.Missing(t, "libnvidia-ml.so.1 is not installed (scripts/deps.sh installs it)")
	}
	if libs, _ := filepath.Glob("/proc/driver/nvidia/version"); len(libs) > 0 {
		t.Skip("an NVIDIA driver is loaded here; the no-driver fact does not apply")
	}
	r := Query()
	if r.Status == "NOT_PROBED" {
		t.Skip("built without cgo")
	}
	if r.Status != "ERROR_DRIVER_NOT_LOADED" || r.Code != 9 || r.Call != "nvmlInit_v2" {
		t.Errorf("report = %+v, want ERROR_DRIVER_NOT_LOADED (9) from nvmlInit_v2", r)
	}
}
