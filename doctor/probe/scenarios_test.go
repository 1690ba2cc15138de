package probe

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/machine"
)

// TestEveryScenarioReplays replays every recording: it must load, gather in
// bounded time and say which OS it is.
func TestEveryScenarioReplays(t *testing.T) {
	ents, err := os.ReadDir(recordingsDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if !e.IsDir() || e.Name() == "fixtures" {
			continue
		}
		n++
		t.Run(e.Name(), func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			s := replay(t, e.Name())
			if time.Since(start) > 10*time.Second {
				t.Errorf("replay took %s", time.Since(start))
			}
			want := "linux"
			if strings.HasPrefix(e.Name(), "win-") {
				want = "windows"
			}
			if s.OS.GOOS != want || s.Schema != machine.SchemaVersion {
				t.Errorf("goos=%q schema=%d", s.OS.GOOS, s.Schema)
			}
			sc, _ := LoadScenario(filepath.Join(recordingsDir, e.Name()))
			if sc.Description == "" {
				t.Error("scenario has no description")
			}
		})
	}
	if n < 20 {
		t.Errorf("%d scenarios, want at least 20", n)
	}
}

func toolkitByVersion(s *machine.Snapshot, prefix string) *machine.CUDAToolkit {
	for i := range s.Toolkits {
		if strings.HasPrefix(s.Toolkits[i].Version, prefix) {
			return &s.Toolkits[i]
		}
	}
	return nil
}

func TestScenarioVS2211CUDA123(t *testing.T) {
	s := replay(t, "win-vs2022-17.11-cuda-12.3")
	if len(s.MSVC) != 1 || s.MSVC[0].ClVersion != "19.41.34123" || s.MSVC[0].DefaultToolset != "14.41.34120" || !s.MSVC[0].HasVCTools || s.MSVC[0].VCVarsAll == "" {
		t.Errorf("msvc = %+v", s.MSVC)
	}
	tk := toolkitByVersion(s, "12.3")
	if tk == nil || tk.Version != "12.3.107" || !containsExact(tk.Found, "CUDA_PATH") || !containsExact(tk.Found, "registry") || !containsExact(tk.Found, "default-dir") || !containsExact(tk.Found, "PATH") {
		t.Errorf("toolkit = %+v", tk)
	}
	var cl *machine.Compiler
	for i := range s.Compilers {
		if s.Compilers[i].Kind == "cl" {
			cl = &s.Compilers[i]
		}
	}
	if cl == nil || cl.Version != "19.41.34123" || cl.Target != "x64" {
		t.Errorf("cl on PATH = %+v", cl)
	}
	if s.Windows == nil || !s.Windows.DeveloperPrompt {
		t.Errorf("windows = %+v, want developer prompt", s.Windows)
	}
}

func TestScenarioBuildToolsNoVCTools(t *testing.T) {
	s := replay(t, "win-vs2022-buildtools-no-vctools")
	if len(s.MSVC) != 1 {
		t.Fatalf("msvc = %+v", s.MSVC)
	}
	m := s.MSVC[0]
	if m.DisplayName != "Visual Studio Build Tools 2022" || m.ProductVersion != "17.14.28" || m.HasVCTools || len(m.Toolsets) != 0 || m.VCVarsAll != "" || !m.FromVswhere {
		t.Errorf("msvc = %+v, want BuildTools 17.14.28 without VC tools", m)
	}
	if len(s.Tools["cl"]) != 0 || len(s.Tools["link"]) != 0 {
		t.Errorf("cl/link hits: %+v %+v", s.Tools["cl"], s.Tools["link"])
	}
}

func TestScenarioTwoToolkitsPathOrder(t *testing.T) {
	s := replay(t, "win-two-toolkits-path-order")
	if len(s.Toolkits) != 2 || s.Toolkits[0].Version != "12.8.61" || s.Toolkits[1].Version != "12.6.20" {
		t.Fatalf("toolkits = %+v", s.Toolkits)
	}
	nv := s.Tools["nvcc"]
	if len(nv) != 2 || !strings.Contains(nv[0].Path, `v12.6\bin\nvcc.exe`) || !strings.Contains(nv[1].Path, `v12.8`) {
		t.Errorf("nvcc hits = %+v, want v12.6 first", nv)
	}
	if s.Env["CUDA_PATH"] == "" || !strings.HasSuffix(s.Env["CUDA_PATH"], `v12.8`) {
		t.Errorf("CUDA_PATH = %q", s.Env["CUDA_PATH"])
	}
	cm := s.Tools["cmake"]
	if len(cm) != 2 || cm[0].Path != `O:\sw\CMake\bin\cmake.exe` || cm[0].Version != "3.31.5" {
		t.Errorf("cmake hits = %+v", cm)
	}
	if s.MSVC[0].Toolsets[0] != "14.40.33807" {
		t.Errorf("toolsets = %v", s.MSVC[0].Toolsets)
	}
}

func TestScenarioThreeToolkits(t *testing.T) {
	s := replay(t, "win-three-toolkits-cuda-path-vars")
	var got []string
	for _, tk := range s.Toolkits {
		got = append(got, tk.Version)
	}
	if strings.Join(got, ",") != "12.8.61,12.4.131,11.8.89" {
		t.Errorf("toolkits = %v", got)
	}
	if !containsExact(s.Toolkits[2].Found, "CUDA_PATH_V11_8") {
		t.Errorf("11.8 found by %v", s.Toolkits[2].Found)
	}
}

func TestScenarioCUDA13BinX64(t *testing.T) {
	s := replay(t, "win-cuda13-bin-x64-missing")
	tk := toolkitByVersion(s, "13.0")
	if tk == nil || !strings.HasSuffix(tk.DLLDir, `bin\x64`) || !tk.HasCudart || !tk.HasCublas {
		t.Fatalf("toolkit = %+v", tk)
	}
	if len(s.Windows.DLLs["cudart64_13.dll"]) != 0 {
		t.Errorf("cudart64_13.dll resolves via %v although bin\\x64 is not on PATH", s.Windows.DLLs["cudart64_13.dll"])
	}
	if s.NVIDIA.DriverVersion != "591.86" || s.NVIDIA.CUDADriverAPI != "13.1" || len(s.NVIDIA.GPUs) != 1 || s.NVIDIA.NVMLStatus != NVMLNotProbed {
		t.Errorf("nvidia = %+v", s.NVIDIA)
	}
}

func TestScenarioCublasMissing(t *testing.T) {
	s := replay(t, "win-cublas-dll-missing")
	tk := toolkitByVersion(s, "12.4")
	if tk == nil || !tk.HasCudart || tk.HasCublas {
		t.Fatalf("toolkit = %+v", tk)
	}
	if len(s.Windows.DLLs["cublas64_12.dll"]) != 0 || len(s.Windows.DLLs["cudart64_12.dll"]) != 1 {
		t.Errorf("dlls = %v", s.Windows.DLLs)
	}
	g := s.NVIDIA.GPUs
	if len(g) != 1 || g[0].Name != "NVIDIA GeForce RTX 4060" || g[0].TotalMiB != 8188 || g[0].FreeMiB != 8188-2420 || g[0].PCIBusID != "00000000:03:00.0" {
		t.Errorf("gpus = %+v", g)
	}
}

func TestScenarioDriverTooOld(t *testing.T) {
	s := replay(t, "win-driver-too-old")
	if s.NVIDIA.DriverVersion != "531.79" || s.NVIDIA.CUDADriverAPI != "12.1" || s.NVIDIA.SMIStatus != SMIOK {
		t.Errorf("nvidia = %+v", s.NVIDIA)
	}
	if tk := toolkitByVersion(s, "12.4"); tk == nil || tk.Version != "12.4.131" {
		t.Errorf("toolkits = %+v", s.Toolkits)
	}
}

func TestScenarioRTX5070Ti(t *testing.T) {
	s := replay(t, "win-rtx5070ti-576.80-cuda-12.8")
	if s.NVIDIA.DriverVersion != "576.80" || s.NVIDIA.CUDADriverAPI != "12.9" || len(s.NVIDIA.GPUs) != 1 || !strings.Contains(s.NVIDIA.GPUs[0].Name, "5070 Ti") {
		t.Errorf("nvidia = %+v", s.NVIDIA)
	}
	if tk := toolkitByVersion(s, "12.8"); tk == nil || tk.Version != "12.8.93" {
		t.Errorf("toolkits = %+v", s.Toolkits)
	}
}

func TestScenarioVS2026(t *testing.T) {
	s := replay(t, "win-vs2026-cuda-13.1")
	if len(s.MSVC) != 1 || s.MSVC[0].DisplayName != "Visual Studio Build Tools 2026" || s.MSVC[0].InstallVersion != "18.10.12224.181" || s.MSVC[0].ClVersion != "19.51.36252" {
		t.Errorf("msvc = %+v", s.MSVC)
	}
	if tk := toolkitByVersion(s, "13.1"); tk == nil || tk.Version != "13.1.115" || len(s.Windows.DLLs["cudart64_13.dll"]) != 1 {
		t.Errorf("toolkit = %+v dlls = %v", tk, s.Windows.DLLs)
	}
	s = replay(t, "win-vs2026-msvc-19.50-cuda-12.8")
	if s.MSVC[0].ClVersion != "19.50.35730" {
		t.Errorf("msvc = %+v", s.MSVC)
	}
}

func TestScenarioGitLink(t *testing.T) {
	s := replay(t, "win-no-devprompt-git-link")
	if len(s.Tools["cl"]) != 0 {
		t.Errorf("cl on PATH: %v", s.Tools["cl"])
	}
	l := s.Tools["link"]
	if len(l) != 1 || !strings.Contains(l[0].Path, `Git\usr\bin\link.exe`) {
		t.Errorf("link hits = %v", l)
	}
	if s.Windows.DeveloperPrompt || len(s.MSVC) != 1 || s.MSVC[0].ClVersion != "19.44.35213" {
		t.Errorf("devprompt=%v msvc=%+v", s.Windows.DeveloperPrompt, s.MSVC)
	}
}

func TestScenarioAMDOpenCL(t *testing.T) {
	s := replay(t, "win-amd-rx7900-opencl-requested")
	o := s.OpenCL
	if o.Status != CLOK || len(o.Platforms) != 2 || o.Platforms[0].Name != "AMD Accelerated Parallel Processing" || o.Platforms[0].Version != "OpenCL 2.1 AMD-APP (3661.0)" {
		t.Fatalf("opencl = %+v", o)
	}
	d := o.Platforms[0].Devices
	if len(d) != 1 || d[0].Name != "AMD Radeon RX 7900 XTX" || d[0].Type != "GPU" || d[0].DriverVersion != "3661.0 (PAL,LC)" || d[0].GlobalMemMiB != 25753026560>>20 {
		t.Errorf("devices = %+v", d)
	}
	if len(o.Platforms[1].Devices) != 2 || len(o.ICDFiles) != 1 {
		t.Errorf("second platform devices = %+v icd = %v", o.Platforms[1].Devices, o.ICDFiles)
	}
	if s.NVIDIA.SMIStatus != SMINotFound {
		t.Errorf("smi = %q", s.NVIDIA.SMIStatus)
	}
}

func TestScenarioClinfoList(t *testing.T) {
	s := replay(t, "win-opencl-nvidia-plus-intel-cpu")
	p := s.OpenCL.Platforms
	if len(p) != 2 || p[0].Name != "NVIDIA CUDA" || p[0].Devices[0].Name != "Quadro K620" || !strings.HasPrefix(p[1].Name, "Intel(R) CPU Runtime") {
		t.Errorf("platforms = %+v", p)
	}
}

func TestScenarioRegistryUnreadable(t *testing.T) {
	s := replay(t, "win-registry-unreadable")
	if tk := toolkitByVersion(s, "12.4"); tk == nil || containsExact(tk.Found, "registry") {
		t.Errorf("toolkits = %+v", s.Toolkits)
	}
	var denied int
	for _, e := range s.ProbeErrors {
		if strings.Contains(e.Error, "Access is denied") {
			denied++
		}
	}
	if denied < 2 {
		t.Errorf("probe errors = %+v, want the denied registry reads", s.ProbeErrors)
	}
}

func TestScenarioStrayGGML(t *testing.T) {
	s := replay(t, "win-stray-ggml-dll-cuda-11.7")
	for _, n := range []string{"ggml.dll", "ggml-cuda.dll", "llama.dll"} {
		if len(s.Windows.DLLs[n]) != 1 {
			t.Errorf("%s: %v", n, s.Windows.DLLs[n])
		}
	}
}

func TestScenarioR610Header(t *testing.T) {
	s := replay(t, "win-r610-kmd-header-cuda-13.0")
	if s.NVIDIA.DriverVersion != "610.62" || s.NVIDIA.CUDADriverAPI != "13.3" {
		t.Errorf("nvidia = %+v", s.NVIDIA)
	}
}

func TestScenarioSMIHangIsBounded(t *testing.T) {
	start := time.Now()
	s := replay(t, "win-nvidia-smi-hangs")
	// The recorded nvidia-smi never returns: finishing at all proves the
	// deadline; the bound is loose so a loaded machine does not fail it.
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("gather took %s with an nvidia-smi that never returns", d)
	}
	if s.NVIDIA.SMIStatus != SMITimeout {
		t.Errorf("smi status = %q", s.NVIDIA.SMIStatus)
	}
	timedOut := false
	for _, e := range s.ProbeErrors {
		timedOut = timedOut || (e.TimedOut && e.Probe == "nvidia")
	}
	if !timedOut {
		t.Errorf("probe errors = %+v", s.ProbeErrors)
	}
	if toolkitByVersion(s, "12.5") == nil {
		t.Error("the other gatherers' facts must survive a hung nvidia-smi")
	}
}

func TestScenarioLinuxTwoNvcc(t *testing.T) {
	s := replay(t, "linux-distro-12.0-and-cuda-12.8")
	if len(s.Toolkits) != 2 || s.Toolkits[0].Version != "12.8.93" || s.Toolkits[0].Root != "/usr/local/cuda-12.8" || s.Toolkits[1].Version != "12.0.140" {
		t.Errorf("toolkits = %+v", s.Toolkits)
	}
	s = replay(t, "linux-ubuntu-11.5-and-12.5")
	if len(s.Toolkits) != 2 || s.Toolkits[0].Version != "12.5.40" || !s.Toolkits[0].HasCublas || s.Toolkits[1].Version != "11.5.119" {
		t.Errorf("toolkits = %+v", s.Toolkits)
	}
	if nv := s.Tools["nvcc"]; len(nv) != 2 || nv[0].Path != "/usr/local/cuda/bin/nvcc" {
		t.Errorf("nvcc hits = %+v", nv)
	}
}

func TestScenarioLinuxEnvAndLibcuda(t *testing.T) {
	s := replay(t, "linux-cuda-visible-devices-empty")
	if v, ok := s.Env["CUDA_VISIBLE_DEVICES"]; !ok || v != "" {
		t.Errorf("CUDA_VISIBLE_DEVICES recorded as %q, %v", v, ok)
	}
	if len(s.NVIDIA.GPUs) != 1 || s.NVIDIA.DriverVersion != "595.71.05" || s.NVIDIA.GPUs[0].TotalMiB != 16376 {
		t.Errorf("nvidia = %+v", s.NVIDIA)
	}
	s = replay(t, "linux-stub-libcuda-ld-library-path")
	if len(s.WSL.LibcudaPaths) < 2 || s.WSL.LibcudaPaths[0] != "/usr/local/cuda-12.4/lib64/stubs/libcuda.so" {
		t.Errorf("libcuda paths = %v, want the stub first", s.WSL.LibcudaPaths)
	}
}

func TestScenarioOpenCLNoICD(t *testing.T) {
	s := replay(t, "linux-opencl-no-icd")
	if s.OpenCL.Status != CLNoPlatforms || len(s.OpenCL.ICDFiles) != 0 || s.OpenCL.Loader == "" {
		t.Errorf("opencl = %+v", s.OpenCL)
	}
	s = replay(t, "linux-no-build-tools")
	if len(s.BuildTools) != 0 || len(s.Compilers) != 0 || len(s.Toolkits) != 0 || s.OpenCL.Status != CLNoLoader {
		t.Errorf("bare machine: %+v %+v %+v %+v", s.BuildTools, s.Compilers, s.Toolkits, s.OpenCL)
	}
}

func TestScenarioVulkan(t *testing.T) {
	s := replay(t, "linux-vulkan-intel-mesa-rtx4070-no-glslc")
	v := s.Vulkan
	if v.Status != "ok" || len(v.Devices) != 2 || v.Devices[1].Name != "NVIDIA GeForce RTX 4070 Laptop GPU" || v.Devices[1].Type != "DISCRETE_GPU" || v.Glslc != "" || v.SPIRVHeaders {
		t.Errorf("vulkan = %+v", v)
	}
}

func TestScenarioWSL(t *testing.T) {
	s := replay(t, "wsl2-ok-libcuda-from-wsl-lib")
	if !s.WSL.IsWSL || s.WSL.Version != 2 || len(s.WSL.LibcudaPaths) == 0 || !strings.HasPrefix(s.WSL.LibcudaPaths[0], "/usr/lib/wsl/lib/") {
		t.Errorf("wsl = %+v", s.WSL)
	}
	if s.NVIDIA.SMIStatus != SMIOK || s.NVIDIA.DriverVersion == "" {
		t.Errorf("nvidia = %+v", s.NVIDIA)
	}
	s = replay(t, "wsl-linux-driver-shadowing")
	if len(s.WSL.LibcudaPaths) < 2 || s.WSL.LibcudaPaths[0] != "/lib/x86_64-linux-gnu/libcuda.so.1" {
		t.Errorf("libcuda = %v", s.WSL.LibcudaPaths)
	}
	s = replay(t, "wsl-windows-path-leak")
	if !s.WSL.WindowsPathInterop || len(s.Tools["nvcc"]) != 3 || !strings.HasSuffix(s.Tools["nvcc"][0].Path, "v12.5/bin/nvcc.exe") || len(s.Toolkits) != 0 {
		t.Errorf("wsl=%+v nvcc=%v toolkits=%+v", s.WSL, s.Tools["nvcc"], s.Toolkits)
	}
	s = replay(t, "wsl2-cuda-version-err")
	if s.NVIDIA.CUDADriverAPI != "" || s.NVIDIA.CUDADriverAPIStatus != "err" {
		t.Errorf("cuda driver api = %q status %q, want empty and err", s.NVIDIA.CUDADriverAPI, s.NVIDIA.CUDADriverAPIStatus)
	}
	s = replay(t, "wsl1-nvidia-smi-failed")
	if s.WSL.Version != 1 || s.NVIDIA.SMIStatus != SMIFailed {
		t.Errorf("wsl=%+v smi=%q", s.WSL, s.NVIDIA.SMIStatus)
	}
	s = replay(t, "wsl-rocm-rx7900-opencl")
	if !s.WSL.IsWSL || len(s.OpenCL.Platforms) == 0 || len(s.OpenCL.Platforms[0].Devices) == 0 || s.OpenCL.Platforms[0].Devices[0].Type != "GPU" {
		t.Errorf("opencl = %+v", s.OpenCL)
	}
}

func TestScenarioHostX86First(t *testing.T) {
	s := replay(t, "win-gtx1070-cuda-12.3-on-d-devprompt")
	cl := s.Tools["cl"]
	if len(cl) != 2 || !strings.Contains(cl[0].Path, `HostX86\x86`) {
		t.Errorf("cl hits = %+v, want the 32-bit HostX86 compiler first", cl)
	}
	tk := toolkitByVersion(s, "12.3")
	if tk == nil || !strings.HasPrefix(tk.Root, `D:\`) || !containsExact(tk.Found, "CUDA_PATH") || containsExact(tk.Found, "default-dir") {
		t.Errorf("toolkit = %+v", tk)
	}
	if len(s.MSVC) != 1 || s.MSVC[0].DefaultToolset != "14.38.33130" {
		t.Errorf("msvc = %+v", s.MSVC)
	}
}

func TestScenarioVulkanOnlyGPUs(t *testing.T) {
	s := replay(t, "win-rtx5090-cuda-12.6")
	if len(s.Vulkan.Devices) != 2 || s.Vulkan.Devices[0].Name != "NVIDIA GeForce RTX 5090" || s.Vulkan.Devices[1].VendorID != "0x1002" {
		t.Errorf("vulkan = %+v", s.Vulkan)
	}
	if tk := toolkitByVersion(s, "12.6"); tk == nil || tk.Version != "12.6.85" {
		t.Errorf("toolkits = %+v", s.Toolkits)
	}
	s = replay(t, "win-devshell-cuda-11.8-before-11.7")
	nv := s.Tools["nvcc"]
	if len(nv) != 2 || !strings.Contains(nv[0].Path, `v11.8`) || len(s.Toolkits) != 2 || s.Toolkits[1].Version != "11.7.99" {
		t.Errorf("nvcc hits = %+v toolkits = %+v", nv, s.Toolkits)
	}
}

func TestScenarioHIPEnv(t *testing.T) {
	s := replay(t, "linux-rocm-hip-env-overrides")
	if s.HIP.Root != "/opt/rocm" || s.HIP.Status != "incomplete" || s.Env["HIP_VISIBLE_DEVICES"] != "0" || s.Env["HSA_OVERRIDE_GFX_VERSION"] != "10.3.0" {
		t.Errorf("hip = %+v env = %v", s.HIP, s.Env)
	}
}

// PATH entries say whether they come from the user or the system PATH
// (registry HKCU\Environment / HKLM ...\Session Manager\Environment).
func TestWindowsPathSource(t *testing.T) {
	d := Deps{
		GOOS:    "windows",
		FS:      NewMemFS("windows", map[string]string{`C:\Windows\System32\`: "", `C:\Users\u\bin\`: ""}),
		Getenv:  func(k string) string { return "" },
		Environ: func() []string { return []string{`Path=C:\Windows\System32;C:\Users\u\bin`, `SystemRoot=C:\Windows`} },
		Registry: &MemRegistry{Keys: map[string]map[string]string{
			regSystemEnv: {"Path": `%SystemRoot%\system32`},
			regUserEnv:   {"Path": `C:\Users\u\bin;`},
		}},
	}
	s := Gather(context.Background(), d)
	if len(s.Path) != 2 || s.Path[0].Source != "system" || s.Path[1].Source != "user" {
		t.Errorf("path = %+v", s.Path)
	}
	if s.Windows.Registry[regUserEnv+`\Path`] == "" {
		t.Errorf("registry facts = %v", s.Windows.Registry)
	}
}
