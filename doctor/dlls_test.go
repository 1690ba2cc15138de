package doctor

import (
	"testing"

	"github.com/llamactl/llamactl/machine"
)

// Checks tell "searched, not found" (an empty list) from "not searched"
// (no key: snapshots from before the probe recorded every name).
func TestDLLNotFoundVersusNotSearched(t *testing.T) {
	win := func(dlls map[string][]string, gpus ...machine.GPU) *machine.Snapshot {
		return &machine.Snapshot{OS: machine.OSInfo{GOOS: "windows"}, NVIDIA: machine.NVIDIA{GPUs: gpus},
			Windows: &machine.Windows{SystemDir: `C:\Windows\System32`, DLLs: dlls}}
	}
	amd := machine.GPU{Name: "AMD Radeon RX 7900 XTX", Vendor: "amd"}
	rtx := machine.GPU{Name: "NVIDIA GeForce RTX 3060", ComputeCapability: "8.6", Vendor: "nvidia"}
	cases := []struct {
		name string
		s    *machine.Snapshot
		run  func(*machine.Snapshot) []Finding
		want string
	}{
		{"amd: not searched (old snapshot)", win(map[string][]string{"nvml.dll": {`C:\Windows\System32\nvml.dll`}}, amd), checkAMDDriverWin, "skip/not-recorded"},
		{"amd: searched, none found", win(map[string][]string{"amdhip64_6.dll": {}, "amdhip64_7.dll": {}}, amd), checkAMDDriverWin, "amd.driver-win/none"},
		{"amd: only v6", win(map[string][]string{"amdhip64_6.dll": {`C:\Windows\System32\amdhip64_6.dll`}, "amdhip64_7.dll": {}}, amd), checkAMDDriverWin, "amd.driver-win/old"},
		{"nvcuda: searched, not found", win(map[string][]string{"nvcuda.dll": {}, "nvml.dll": {`C:\Windows\System32\nvml.dll`}}, rtx), checkPathDLLs, "path.dlls/nvcuda-missing"},
		{"nvcuda: not searched", win(map[string][]string{"nvml.dll": {`C:\Windows\System32\nvml.dll`}}, rtx), checkPathDLLs, "path.dlls/ok"},
	}
	for _, c := range cases {
		fs := c.run(c.s)
		if len(fs) == 0 || fs[0].Message != c.want {
			t.Errorf("%s: %+v, want %s", c.name, fs, c.want)
		}
	}

	// CUDA 11's runtime is cudart64_110.dll: searched and absent is an
	// error; absent from an old snapshot (never searched) is no finding.
	tk := machine.CUDAToolkit{Version: "11.8.89", Root: `C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8`, NVCC: `C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8\bin\nvcc.exe`, Found: []string{"CUDA_PATH"}}
	s := win(map[string][]string{"cudart64_110.dll": {}, "cublas64_11.dll": {tk.Root + `\bin\cublas64_11.dll`}, "cublasLt64_11.dll": {tk.Root + `\bin\cublasLt64_11.dll`}}, rtx)
	s.Toolkits = []machine.CUDAToolkit{tk}
	s.Env = map[string]string{"CUDA_PATH": tk.Root}
	got := map[string]string{}
	for _, f := range checkRuntimeDLLs(s) {
		got[f.Message] += "x"
	}
	if got["cuda.runtime-dlls/not-found"] != "x" || got["cuda.runtime-dlls/ok"] != "xx" {
		t.Errorf("CUDA 11 runtime DLLs: %v", got)
	}
	s.Windows.DLLs = map[string][]string{"nvml.dll": {`C:\Windows\System32\nvml.dll`}}
	if fs := checkRuntimeDLLs(s); len(fs) != 1 || fs[0].Status != Skipped {
		t.Errorf("old snapshot without CUDA 11 DLL searches: %+v", fs)
	}
}
