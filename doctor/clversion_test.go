package doctor

import (
	"context"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/version"
	"github.com/llamactl/llamactl/machine"
)

// msvc.cl-version applies both ends of host_config.h's _MSC_VER range and
// the STL's own check (Host compilers, pitfalls 1 and 2).
func TestClVersionGates(t *testing.T) {
	for _, c := range []struct {
		name, cl, cuda, want, says string
	}{
		{"VS 2017 with CUDA 13.0: below 13.x's floor 1920", "19.16.27054", "13.0.48", "msvc.cl-version/msvc-too-old", "needs cl 19.20 or newer"},
		{"VS 2017 with CUDA 12.4: 12.x still accepts 1910+", "19.16.27054", "12.4.131", "msvc.cl-version/ok", ""},
		{"VS 2022 17.10 with CUDA 12.3: above 12.3's limit 1940", "19.40.33807", "12.3.107", "msvc.cl-version/msvc-too-new", "It needs CUDA 12.4 or newer"},
		{"VS 2022 17.14 with CUDA 12.4", "19.44.35207", "12.4.131", "msvc.cl-version/ok", ""},
		{"STL main (19.52) with CUDA 13.2: host_config accepts, STL1002 refuses", "19.52.0", "13.2.51", "msvc.cl-version/stl-too-new", "it needs CUDA 13.3 or newer"},
	} {
		s := &machine.Snapshot{OS: machine.OSInfo{GOOS: "windows"},
			MSVC:     []machine.MSVCInstall{{DisplayName: "Visual Studio Build Tools", InstallVersion: "1.0", Path: `C:\VS`, HasVCTools: true, ClVersion: c.cl}},
			Toolkits: []machine.CUDAToolkit{{Version: c.cuda, Root: `C:\CUDA`, NVCC: `C:\CUDA\bin\nvcc.exe`}}}
		fs := checkClVersion(s)
		if len(fs) != 1 || fs[0].Message != c.want {
			t.Errorf("%s: %+v, want %s", c.name, fs, c.want)
			continue
		}
		if !strings.Contains(fs[0].Summary, c.says) {
			t.Errorf("%s: %q does not say %q", c.name, fs[0].Summary, c.says)
		}
		if fs[0].Status == Error && (fs[0].Fix == nil || fs[0].Fix.Text == "" || strings.Contains(fs[0].Fix.Text, "{")) {
			t.Errorf("%s: an error without a filled fix: %+v", c.name, fs[0].Fix)
		}
	}
}

// The selection and cuda.select apply the same floor: VS 2017 with CUDA
// 13.0 installed is blocked, and a 12.x that accepts cl 19.16 is advised.
func TestSelectionRespectsTheMSVCFloor(t *testing.T) {
	s := &machine.Snapshot{OS: machine.OSInfo{GOOS: "windows"},
		NVIDIA:   machine.NVIDIA{NVMLStatus: "ok", DriverVersion: "591.86", CUDADriverAPI: "13.1", GPUs: []machine.GPU{{Index: 0, Name: "NVIDIA GeForce RTX 4090", ComputeCapability: "8.9", TotalMiB: 24564}}},
		MSVC:     []machine.MSVCInstall{{DisplayName: "Visual Studio Build Tools 2017", InstallVersion: "15.9", Path: `C:\VS`, HasVCTools: true, ClVersion: "19.16.27054"}},
		Toolkits: []machine.CUDAToolkit{{Version: "13.0.88", Root: `C:\CUDA`, NVCC: `C:\CUDA\bin\nvcc.exe`}}}
	fs := Run(context.Background(), s, Options{Only: []string{"cuda.select"}})
	if len(fs) != 1 || fs[0].Message != "cuda.select/blocked" || !strings.Contains(strings.Join(fs[0].Details, " "), "too old") {
		t.Errorf("cuda.select: %+v", fs)
	}
	if sel := Select(s); sel.Backend != "cuda" || version.Major(sel.CUDA) != 12 {
		t.Errorf("selection %s %s, want a CUDA 12.x to install: %v", sel.Backend, sel.CUDA, sel.Reasons)
	}
}
