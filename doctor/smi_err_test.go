package doctor

import (
	"strings"
	"testing"

	"github.com/llamactl/llamactl/machine"
)

// "CUDA Version: ERR!" is reported as such (with the WSL cause inside WSL),
// whether the snapshot has the status field or, from before it existed, kept
// "ERR!" as the version; nv.driver-cuda then says why it cannot judge.
func TestSMICUDAVersionErr(t *testing.T) {
	base := func() *machine.Snapshot {
		return &machine.Snapshot{OS: machine.OSInfo{GOOS: "linux"}, NVIDIA: machine.NVIDIA{NVMLStatus: "ok", DriverVersion: "546.80", SMIStatus: "ok", SMIDriverVersion: "546.80",
			GPUs: []machine.GPU{{Name: "NVIDIA GeForce RTX 3060", ComputeCapability: "8.6"}}}}
	}
	cases := []struct {
		name string
		edit func(*machine.Snapshot)
		want string
	}{
		{"status field", func(s *machine.Snapshot) { s.NVIDIA.CUDADriverAPIStatus = "err" }, "nv.smi-consistency/cuda-err"},
		{"legacy version ERR!", func(s *machine.Snapshot) { s.NVIDIA.CUDADriverAPI = "ERR!" }, "nv.smi-consistency/cuda-err"},
		{"WSL", func(s *machine.Snapshot) {
			s.NVIDIA.CUDADriverAPIStatus = "err"
			s.WSL = machine.WSL{IsWSL: true, Version: 2, DriverPackages: []string{"nvidia-utils-545 545.29.06-0ubuntu1"}}
		}, "nv.smi-consistency/cuda-err-wsl"},
		{"N/A is no failure", func(s *machine.Snapshot) { s.NVIDIA.CUDADriverAPIStatus = "n/a" }, "nv.smi-consistency/ok"},
	}
	for _, c := range cases {
		s := base()
		c.edit(s)
		f := checkSMIConsistency(s)
		if len(f) != 1 || f[0].Message != c.want {
			t.Errorf("%s: %+v, want %s", c.name, f, c.want)
			continue
		}
		if c.want == "nv.smi-consistency/cuda-err-wsl" && !strings.Contains(f[0].Summary, "nvidia-utils-545") {
			t.Errorf("%s: summary %q does not name the Linux packages", c.name, f[0].Summary)
		}
		d := checkDriverCUDA(s)
		wantD := "skip/cuda-api-err"
		if c.want == "nv.smi-consistency/ok" {
			wantD = "skip/no-driver"
		}
		if len(d) != 1 || d[0].Message != wantD {
			t.Errorf("%s: nv.driver-cuda %+v, want %s", c.name, d, wantD)
		}
	}
}

// Without nvidia-smi the two nvidia-smi checks say so, not "not recorded".
func TestNoNvidiaSMI(t *testing.T) {
	s := &machine.Snapshot{OS: machine.OSInfo{GOOS: "linux"}, NVIDIA: machine.NVIDIA{NVMLStatus: "ERROR_DRIVER_NOT_LOADED", SMIStatus: "not-found"}}
	for _, f := range append(checkSMIConsistency(s), checkSMIFields(s)...) {
		if f.Message != "skip/no-smi" || f.SkippedBecause != "nvidia-smi is not installed" {
			t.Errorf("%s: %s %q", f.ID, f.Message, f.SkippedBecause)
		}
	}
}
