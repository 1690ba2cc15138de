package doctor

import (
	"strings"
	"testing"

	"github.com/llamactl/llamactl/machine"
)

// llama.cpp's OpenCL backend needs OpenCL C 2.0; the floor
// is enginefacts', so doctor and the kernels probe apply the same one.
func TestOCLCompatOpenCLCFloor(t *testing.T) {
	for _, c := range []struct {
		oclc, want string
	}{
		{"OpenCL C 3.0 ", "ocl.llama-compat/ok"},
		{"OpenCL C 1.2 ", "ocl.llama-compat/requested-alt-vulkan"},
		{"", "ocl.llama-compat/ok"}, // not recorded: not held against the device
	} {
		s := &machine.Snapshot{OS: machine.OSInfo{GOOS: "windows"},
			OpenCL: machine.OpenCL{Status: "ok", Platforms: []machine.OpenCLPlatform{{Name: "Intel(R) OpenCL Graphics", Vendor: "Intel(R) Corporation",
				Devices: []machine.OpenCLDevice{{Name: "Intel(R) Iris(R) Xe Graphics", Vendor: "Intel(R) Corporation", Type: "GPU", OpenCLCVersion: c.oclc}}}}}}
		fs := checkOCLCompat(s, "opencl")
		if len(fs) != 1 || fs[0].Message != c.want {
			t.Errorf("%q: %+v, want %s", c.oclc, fs, c.want)
			continue
		}
		if c.want != "ocl.llama-compat/ok" && !strings.Contains(fs[0].Summary, "older than the required 2.0") {
			t.Errorf("%q: the summary does not say why: %s", c.oclc, fs[0].Summary)
		}
	}
}

// Stray llama.cpp DLLs are whatever the probe's patterns find on PATH, not
// a shorter list of names: a leftover Vulkan or HIP build counts too.
func TestGGMLStrayUsesTheProbePatterns(t *testing.T) {
	s := &machine.Snapshot{OS: machine.OSInfo{GOOS: "windows"}, Windows: &machine.Windows{DLLs: map[string][]string{
		"cudart64_12.dll": {`C:\CUDA\bin\cudart64_12.dll`},
		"ggml-vulkan.dll": {`C:\old-llama\ggml-vulkan.dll`},
	}}}
	fs := checkGGMLStray(s)
	if len(fs) != 1 || fs[0].Message != "path.ggml-stray/found" || !strings.Contains(fs[0].Summary, `C:\old-llama`) {
		t.Errorf("%+v", fs)
	}
	s.Windows.DLLs = map[string][]string{"cudart64_12.dll": {`C:\CUDA\bin\cudart64_12.dll`}}
	if fs := checkGGMLStray(s); len(fs) != 1 || fs[0].Message != "path.ggml-stray/ok" {
		t.Errorf("no stray DLL: %+v", fs)
	}
}
