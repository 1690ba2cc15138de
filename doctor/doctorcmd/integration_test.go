package doctorcmd_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/doctor/doctorcmd"
	"github.com/llamactl/llamactl/internal/cli"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
)

// realDoctor runs `llamactl doctor --json` against this machine, with the
// real command runner, file system and NVML child (this test binary).
func realDoctor(t testing.TB, args ...string) (int, doctorcmd.Doc) {
	f := cmdutil.New()
	var out, errOut bytes.Buffer
	f.IO.Out, f.IO.ErrOut = &out, &errOut
	code := cli.Execute(f, append([]string{"doctor", "--json"}, args...))
	var d doctorcmd.Doc
	if code > 1 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if err := jsonUnmarshal(out.Bytes(), &d); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return code, d
}

func needCI(t testing.TB) {
	if runtime.GOOS != "linux" {
		t.Skip("the CI facts are those of the Debian CI machine")
	}
	for _, p := range []string{"/usr/bin/nvcc", "/usr/bin/g++-11", "/usr/bin/g++-12"} {
		if _, err := os.Stat(p); err != nil {
			testutil.Missing(t, "%s is absent (scripts/deps.sh installs it as root)", p)
		}
	}
	if ms, _ := filepath.Glob("/usr/lib/*/libnvidia-ml.so.1"); len(ms) == 0 {
		testutil.Missing(t, "libnvidia-ml.so.1 is absent (Debian's nvidia-cuda-toolkit brings it; scripts/deps.sh installs it)")
	}
	if _, err := exec.LookPath("clinfo"); err != nil {
		testutil.Missing(t, "clinfo is absent (scripts/deps.sh installs PoCL and clinfo)")
	}
	if r, err := (proc.Exec{}).Run(context.Background(), proc.Cmd{Name: "nvidia-smi", Args: []string{"-L"}, Timeout: 5 * time.Second}); err == nil && strings.Contains(r.Combined(), "GPU ") {
		t.Skip("this machine has an NVIDIA GPU; the test asserts the GPU-less CI machine")
	}
}

// The integration test: the real doctor on the CI machine finds
// Debian's nvcc 11.8, NVML present without a GPU, gcc 12 rejected with
// g++-11 selected, PoCL's CPU device, not WSL, and the CPU backend.
func TestRealDoctorOnCIMachine(t *testing.T) {
	needCI(t)
	code, d := realDoctor(t)
	if code != 0 {
		for _, c := range d.Checks {
			if c.Status == "error" {
				t.Logf("error: %s: %s", c.Message, c.Summary)
			}
		}
		t.Errorf("exit %d, want 0 (warnings only)", code)
	}
	s := d.Snapshot
	var tk11 bool
	for _, tk := range s.Toolkits {
		if strings.HasPrefix(tk.Version, "11.8.") && tk.NVCC == "/usr/bin/nvcc" {
			tk11 = true
		}
	}
	if !tk11 {
		t.Errorf("no CUDA 11.8 at /usr/bin/nvcc: %+v", s.Toolkits)
	}
	if s.NVIDIA.NVMLStatus != "ERROR_DRIVER_NOT_LOADED" || s.NVIDIA.NVMLLibrary == "" || len(s.NVIDIA.GPUs) != 0 {
		t.Errorf("NVML: status %q library %q gpus %d; want ERROR_DRIVER_NOT_LOADED with the library and no GPU", s.NVIDIA.NVMLStatus, s.NVIDIA.NVMLLibrary, len(s.NVIDIA.GPUs))
	}
	msgs := map[string]bool{}
	for _, c := range d.Checks {
		msgs[c.Message] = true
	}
	for _, m := range []string{"cuda.host-compiler/sibling", "nv.nvml-init/no-gpu", "ocl.platforms/cpu-only", "wsl.detect/not-wsl", "cuda.debian-layout/debian"} {
		if !msgs[m] {
			t.Errorf("no %s finding", m)
		}
	}
	if d.Selection.HostCompiler != "/usr/bin/g++-11" || d.Selection.Backend != "cpu" {
		t.Errorf("selection host compiler %q backend %q", d.Selection.HostCompiler, d.Selection.Backend)
	}
	pocl := false
	for _, p := range s.OpenCL.Platforms {
		if p.Name == "Portable Computing Language" {
			for _, dev := range p.Devices {
				pocl = pocl || strings.EqualFold(dev.Type, "CPU")
			}
		}
	}
	if !pocl {
		t.Errorf("no PoCL platform with a CPU device: %+v", s.OpenCL)
	}
	if s.WSL.IsWSL {
		t.Error("reported as WSL")
	}
}

// BenchmarkRealDoctor measures `llamactl doctor --json` wall time on this
// machine (the goal: 1 s). Run: go test ./doctor/doctorcmd -run XXX -bench RealDoctor
func BenchmarkRealDoctor(b *testing.B) {
	var gather, checks, sum float64
	for i := 0; i < b.N; i++ {
		_, d := realDoctor(b)
		gather += d.Timing.GatherMS
		checks += d.Timing.ChecksMS
		sum += d.Timing.ChecksSumMS
	}
	n := float64(b.N)
	b.ReportMetric(gather/n, "gather-ms/op")
	b.ReportMetric(checks/n, "checks-ms/op")
	b.ReportMetric(sum/n, "checks-sum-ms/op")
}

// docs/doctor.md's example document is the CI machine's: its summary counts
// match a real run here (they drift when checks are added).
// The shell's PATH is not the machine's: a session may carry a folder twice
// or one that does not exist, and path.hygiene then adds an ok note per
// finding. The example is taken with a clean PATH (the same folders, in the
// same order, each once and present).
func TestDocsExampleIsCIMachine(t *testing.T) {
	needCI(t)
	t.Setenv("PATH", cleanPath(os.Getenv("PATH")))
	_, d := realDoctor(t)
	if want := exampleSummary(t); d.Summary != want {
		t.Errorf("docs/doctor.md's example says %+v, this machine gives %+v: update the example", want, d.Summary)
	}
}

// cleanPath keeps each existing folder of a PATH once, in order.
func cleanPath(path string) string {
	var keep []string
	seen := map[string]bool{}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || seen[dir] {
			continue
		}
		seen[dir] = true
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(os.PathListSeparator))
}
