package probe

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/llamactl/llamactl/machine"
)

const recordingsDir = "../../testdata/doctor/recordings"

func replay(t *testing.T, name string) *machine.Snapshot {
	t.Helper()
	s, err := GatherRecording(filepath.Join(recordingsDir, name))
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("PROBE_DUMP") != "" {
		b, _ := json.MarshalIndent(s, "", "  ")
		t.Log(string(b))
	}
	return s
}

func TestReplayLinuxCI(t *testing.T) {
	s := replay(t, "linux-ci-debian-bookworm")
	if s.NVIDIA.NVMLStatus != "ERROR_DRIVER_NOT_LOADED" {
		t.Errorf("NVML status = %q, want ERROR_DRIVER_NOT_LOADED", s.NVIDIA.NVMLStatus)
	}
	if len(s.Toolkits) != 1 || s.Toolkits[0].Version != "11.8.89" || s.Toolkits[0].NVCC != "/usr/bin/nvcc" || s.Toolkits[0].Root != "/usr/lib/nvidia-cuda-toolkit" {
		t.Errorf("toolkits = %+v, want one: 11.8.89 at /usr/bin/nvcc", s.Toolkits)
	}
	if hits := s.Tools["cmake"]; len(hits) != 1 || hits[0].Version != "3.25.1" {
		t.Errorf("cmake hits = %+v (the merged-/usr /bin/cmake must fold into /usr/bin/cmake)", hits)
	}
	var gpp11, gpp12 bool
	for _, c := range s.Compilers {
		gpp11 = gpp11 || (c.Kind == "g++" && c.Major == 11 && c.Path == "/usr/bin/g++-11")
		gpp12 = gpp12 || (c.Kind == "g++" && c.Major == 12 && c.Path == "/usr/bin/g++")
	}
	if !gpp11 || !gpp12 {
		t.Errorf("compilers = %+v, want g++ 12 and g++-11", s.Compilers)
	}
	if s.OpenCL.Status != "ok" || len(s.OpenCL.Platforms) != 1 || s.OpenCL.Platforms[0].Name != "Portable Computing Language" ||
		len(s.OpenCL.Platforms[0].Devices) != 1 || s.OpenCL.Platforms[0].Devices[0].Type != "CPU" {
		t.Errorf("opencl = %+v, want the PoCL platform with one CPU device", s.OpenCL)
	}
	if s.WSL.IsWSL {
		t.Error("CI machine reported as WSL")
	}
	if s.NVIDIA.SMIStatus != SMINotFound || len(s.NVIDIA.GPUs) != 0 {
		t.Errorf("nvidia = %+v, want no nvidia-smi and no GPU", s.NVIDIA)
	}
	if s.OS.Name != "Debian GNU/Linux 12 (bookworm)" || s.OS.Glibc != "2.36" {
		t.Errorf("os = %+v", s.OS)
	}
	if len(s.ProbeErrors) != 0 {
		t.Errorf("probe errors: %+v", s.ProbeErrors)
	}
}
