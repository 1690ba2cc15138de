package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/doctor/probe/nvmlnative"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/machine"
)

// TestMain lets the test binary stand in for llamactl as the NVML child:
// Gather runs `<self> __probe nvml`.
func TestMain(m *testing.M) {
	if len(os.Args) >= 3 && os.Args[1] == "__probe" && os.Args[2] == "nvml" {
		b, _ := json.Marshal(nvmlnative.Query())
		fmt.Println(string(b))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func systemDeps(t testing.TB) Deps {
	f := cmdutil.New()
	d := System(f.Env())
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	d.Self = self
	// These tests assert facts, not speed (BenchmarkGatherThisMachine
	// measures that). On a loaded 2-core CI machine clinfo and dpkg -l
	// overran the product's 5s command deadline, so the facts went missing
	// and the test failed for no bug; give real tools room here.
	d.CommandTimeout = 30 * time.Second
	d.Timeout = 60 * time.Second
	return d
}

func TestDumpThisMachine(t *testing.T) {
	if os.Getenv("PROBE_DUMP") == "" {
		t.Skip("set PROBE_DUMP=1 to print this machine's snapshot")
	}
	s := Gather(context.Background(), systemDeps(t))
	b, _ := json.MarshalIndent(s, "", "  ")
	t.Log(string(b))
}

// TestRecordThisMachine writes this machine as a scenario:
// PROBE_RECORD=$PWD/testdata/doctor/recordings/linux-ci-debian-bookworm go test -run TestRecordThisMachine ./doctor/probe/
func TestRecordThisMachine(t *testing.T) {
	dir := os.Getenv("PROBE_RECORD")
	if dir == "" {
		t.Skip("set PROBE_RECORD=DIR to record this machine as a scenario")
	}
	d, rec := Record(systemDeps(t))
	Gather(context.Background(), d)
	if err := rec.WriteScenario(dir, os.Getenv("PROBE_RECORD_DESCRIPTION")); err != nil {
		t.Fatal(err)
	}
}

// TestGatherThisMachine runs the real gather on the CI machine (Debian 12
// with nvidia-cuda-toolkit 11.8, g++-11, PoCL; no GPU) and checks the facts
// issue 3 names. Each part skips when its component is not installed.
func TestGatherThisMachine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the CI facts are Linux facts")
	}
	s := Gather(context.Background(), systemDeps(t))
	if s.OS.GOOS != "linux" || s.OS.LogicalCores == 0 || s.OS.RAMTotalMiB == 0 {
		t.Errorf("os = %+v", s.OS)
	}
	if s.WSL.IsWSL {
		t.Error("reported as WSL")
	}
	if _, err := os.Stat("/usr/bin/nvcc"); err != nil {
		t.Log("skip nvcc facts: /usr/bin/nvcc absent (scripts/deps.sh installs nvidia-cuda-toolkit)")
	} else {
		var tk *machine.CUDAToolkit
		for i := range s.Toolkits {
			if s.Toolkits[i].NVCC == "/usr/bin/nvcc" {
				tk = &s.Toolkits[i]
			}
		}
		if tk == nil || !strings.HasPrefix(tk.Version, "11.8.") || !containsExact(tk.GPUArchs, "compute_89") {
			t.Errorf("nvcc toolkit = %+v", tk)
		}
	}
	if libs, _ := filepath.Glob("/usr/lib/*/libnvidia-ml.so.1"); len(libs) == 0 {
		t.Log("skip NVML facts: libnvidia-ml.so.1 absent")
	} else if s.NVIDIA.NVMLStatus != "ERROR_DRIVER_NOT_LOADED" && s.NVIDIA.NVMLStatus != NVMLNotProbed {
		// NOT_PROBED: a CGO_ENABLED=0 test binary cannot load NVML
		t.Errorf("NVML status = %q, want ERROR_DRIVER_NOT_LOADED (library present, no driver)", s.NVIDIA.NVMLStatus)
	}
	if len(s.NVIDIA.GPUs) != 0 {
		t.Errorf("GPUs on a GPU-less machine: %+v", s.NVIDIA.GPUs)
	}
	if _, err := os.Stat("/usr/bin/g++-11"); err == nil {
		found := false
		for _, c := range s.Compilers {
			found = found || (c.Path == "/usr/bin/g++-11" && c.Major == 11)
		}
		if !found {
			t.Errorf("g++-11 not among %+v", s.Compilers)
		}
	}
	if _, err := os.Stat("/etc/OpenCL/vendors/pocl.icd"); err == nil {
		if _, err := os.Stat("/usr/bin/clinfo"); err == nil {
			ok := false
			for _, p := range s.OpenCL.Platforms {
				for _, d := range p.Devices {
					ok = ok || (p.Name == "Portable Computing Language" && d.Type == "CPU")
				}
			}
			if !ok {
				t.Errorf("opencl = %+v, want the PoCL CPU device", s.OpenCL)
			}
		}
	}
	if _, err := os.Stat("/usr/bin/cmake"); err == nil && s.BuildTools["cmake"].Version == "" {
		t.Errorf("cmake = %+v", s.BuildTools["cmake"])
	}
	for _, e := range s.ProbeErrors {
		t.Logf("probe error: %+v", e)
	}
}

// BenchmarkGatherThisMachine measures Gather's wall time on this machine and
// reports the sum of the gatherers' own times: sum > wall shows they ran
// concurrently.
func BenchmarkGatherThisMachine(b *testing.B) {
	d := systemDeps(b)
	var sum, wall time.Duration
	for i := 0; i < b.N; i++ {
		s := Gather(context.Background(), d)
		wall += s.Timings.Wall
		for _, g := range s.Timings.Gatherers {
			sum += g.Duration
		}
	}
	b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "wall-ms/op")
	b.ReportMetric(float64(sum.Milliseconds())/float64(b.N), "sum-gatherers-ms/op")
}

// BenchmarkGatherRecording is the replay cost of one Windows scenario.
func BenchmarkGatherRecording(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := GatherRecording(filepath.Join(recordingsDir, "win-two-toolkits-path-order")); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRecordRoundTrip: what Record captures replays to the same facts.
func TestRecordRoundTrip(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("records this Linux machine")
	}
	d, rec := Record(systemDeps(t))
	live := Gather(context.Background(), d)
	dir := t.TempDir()
	if err := rec.WriteScenario(dir, "round trip"); err != nil {
		t.Fatal(err)
	}
	replayed, err := GatherRecording(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, pair := range map[string][2]any{
		"toolkits":    {live.Toolkits, replayed.Toolkits},
		"compilers":   {live.Compilers, replayed.Compilers},
		"opencl":      {live.OpenCL, replayed.OpenCL},
		"nvidia":      {live.NVIDIA, replayed.NVIDIA},
		"tools":       {live.Tools, replayed.Tools},
		"build_tools": {live.BuildTools, replayed.BuildTools},
		"wsl":         {live.WSL, replayed.WSL},
		"path":        {live.Path, replayed.Path},
	} {
		a, _ := json.Marshal(pair[0])
		b, _ := json.Marshal(pair[1])
		if string(a) != string(b) {
			t.Errorf("%s differs after replay:\nlive     %s\nreplayed %s", name, a, b)
		}
	}
}
