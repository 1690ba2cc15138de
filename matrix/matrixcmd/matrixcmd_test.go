package matrixcmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
)

// run executes `matrix ARGS...` the way the root command would.
func run(t *testing.T, jsonOut bool, args ...string) (string, string, int) {
	t.Helper()
	return runEnv(t, nil, jsonOut, args...)
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	if v["schema"] != float64(1) {
		t.Errorf("schema = %v, want 1", v["schema"])
	}
	return v
}

func TestGPUJSON(t *testing.T) {
	out, _, code := run(t, true, "gpu", "NVIDIA", "GeForce", "RTX", "4060", "Laptop", "GPU")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	v := decode(t, out)
	if v["query"] != "NVIDIA GeForce RTX 4060 Laptop GPU" || v["compute_capability"] != "8.9" || v["arch"] != "Ada Lovelace" ||
		v["name"] != "NVIDIA GeForce RTX 4060 Laptop GPU" || v["source"] == nil || v["cuda_architecture"] != "89-real" || v["found"] != true {
		t.Errorf("unexpected document: %v", v)
	}
}

func TestGPUHumanAndUnknown(t *testing.T) {
	out, _, code := run(t, false, "gpu", "4090")
	if code != 0 || !strings.Contains(out, "compute capability 8.9") || !strings.Contains(out, "CMAKE_CUDA_ARCHITECTURES=89-real") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
	out, _, code = run(t, false, "gpu", "RTX 6000")
	if code != cmdutil.ExitFindings || !strings.Contains(out, "closest:") || !strings.Contains(out, "--cc") {
		t.Errorf("ambiguous name: exit %d, output:\n%s", code, out)
	}
	out, _, code = run(t, true, "gpu", "Radeon 7900")
	if code != cmdutil.ExitFindings || decode(t, out)["found"] != false {
		t.Errorf("unknown name: exit %d, %s", code, out)
	}
	_, _, code = run(t, false, "gpu")
	if code == 0 {
		t.Error("gpu without a name should fail")
	}
	_, errOut, code := run(t, false, "gpu", "  ")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "nvidia-smi -L") {
		t.Errorf("blank name: exit %d %q", code, errOut)
	}
}

func TestCUDAJSON(t *testing.T) {
	out, _, code := run(t, true, "cuda", "12.4")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	v := decode(t, out)
	if v["version"] != "12.4.1" || v["minor"] != "12.4" {
		t.Errorf("version %v minor %v", v["version"], v["minor"])
	}
	drv := v["driver"].(map[string]any)
	floor := v["family_floor"].(map[string]any)
	if drv["linux"] != "550.54.15" || drv["windows"] != "551.78" || floor["windows"] != "528.33" {
		t.Errorf("drivers %v floor %v", drv, floor)
	}
	if !strings.Contains(out, `"sm_89"`) || strings.Contains(out, `"sm_120"`) {
		t.Error("sm list wrong")
	}
	if g := v["gcc"].(map[string]any); g["max_major"] != float64(13) || g["documented"] != "13.2" {
		t.Errorf("gcc %v", g)
	}
	if ms := v["msvc"].(map[string]any); ms["cl_max"] != "19.49" || ms["msc_ver_max_exclusive"] != float64(1950) {
		t.Errorf("msvc %v", ms)
	}
	stl := v["msvc_stl"].([]any)
	accepts := map[string]bool{}
	for _, s := range stl {
		m := s.(map[string]any)
		accepts[m["requires_cuda"].(string)] = m["accepts"].(bool)
	}
	if !accepts["12.4"] || accepts["13.2"] {
		t.Errorf("STL coupling wrong: %v", accepts)
	}
	if v["uncertain"] != true || v["source"] == "" || len(v["sources"].([]any)) == 0 {
		t.Error("uncertainty or sources lost")
	}
}

func TestCUDAHumanAndErrors(t *testing.T) {
	out, _, code := run(t, false, "cuda", "V13.0.88")
	if code != 0 || !strings.Contains(out, "CUDA 13.0.2") || !strings.Contains(out, "sm_75") || strings.Contains(out, "sm_61") || !strings.Contains(out, "Windows N/A") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	_, errOut, code := run(t, false, "cuda", "10.2")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "known:") || !strings.Contains(errOut, "nvcc --version") {
		t.Errorf("unknown toolkit: exit %d %q", code, errOut)
	}
}

func TestResolveJSONShape(t *testing.T) {
	out, _, code := run(t, true, "resolve", "--gpu", "RTX 4090", "--driver", "560.94", "--os", "windows", "--msvc", "19.41", "--toolkit", "12.4.131")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	v := decode(t, out)
	cuda := v["cuda"].(map[string]any)
	if v["ok"] != true || cuda["recommended"] != "12.4.131" || v["cuda_architectures"] != "89-real" {
		t.Errorf("document: %s", out)
	}
	if len(cuda["acceptable"].([]any)) == 0 || len(v["reasons"].([]any)) == 0 {
		t.Error("acceptable or reasons missing")
	}
}

func TestResolveBlockersExitOne(t *testing.T) {
	out, _, code := run(t, false, "resolve", "--gpu", "RTX 4090", "--os", "windows", "--msvc", "19.40", "--toolkit", "12.3")
	if code != cmdutil.ExitFindings {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, want := range []string{"✗", "is too new for CUDA 12.3", "fix: use CUDA ≥ 12.4", "last resort, unsupported: pass -allow-unsupported-compiler"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, _, code = run(t, true, "resolve", "--gpu", "GTX 1080 Ti", "--toolkit", "13.0")
	v := decode(t, out)
	bl := v["blockers"].([]any)
	if code != 1 || v["ok"] != false || len(bl) == 0 || bl[0].(map[string]any)["id"] != "gpu-arch-too-old" {
		t.Errorf("exit %d: %s", code, out)
	}
}

func TestResolveHumanAdvice(t *testing.T) {
	out, _, code := run(t, false, "resolve", "--cc", "8.6", "--cc", "6.1", "--gcc", "12", "--available-gcc", "11,12", "--toolkit", "11.8.89")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{"Build with CUDA 11.8.89 and CMAKE_CUDA_ARCHITECTURES=61-real;86-real, host compiler g++-11", "CUDA 13.3.1 does not fit"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestResolveUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"resolve", "--os", "macos"},
		{"resolve", "--driver", "newest"},
		{"resolve", "--msvc", "2022"},
		{"resolve", "--gcc", "gnu"},
		{"resolve", "--cc", "eight"},
	} {
		_, errOut, code := run(t, false, args...)
		if code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d (%q), want 2", args, code, errOut)
		}
	}
}
