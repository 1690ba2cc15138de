package probe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/recorded"
)

const fixturesDir = recordingsDir + "/fixtures"

// fixture reads a recorded-output fixture without its header.
func fixture(t testing.TB, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixturesDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return recorded.Body(strings.ReplaceAll(string(b), "\r\n", "\n"))
}

func TestParseNvccVersion(t *testing.T) {
	cases := map[string]string{
		"nvcc/nvcc-12.4.131-win-gitbash.txt": "12.4.131",
		"nvcc/nvcc-13.0.88-win.txt":          "13.0.88",  // leading space
		"nvcc/nvcc-13.1.115-win.txt":         "13.1.115", // leading tab
		"nvcc/nvcc-11.7.64-win.txt":          "11.7.64",
	}
	for f, want := range cases {
		if got := ParseNvccVersion(fixture(t, f)); got != want {
			t.Errorf("%s: %q, want %q", f, got, want)
		}
	}
	if got := ParseNvccVersion("Cuda compilation tools, release 9.1"); got != "9.1" {
		t.Errorf("release-only: %q", got)
	}
	if got := ParseNvccVersion("nvcc fatal : Cannot find compiler 'cl.exe' in PATH"); got != "" {
		t.Errorf("error output: %q", got)
	}
}

func TestParseListGPUArch(t *testing.T) {
	got := ParseListGPUArch("compute_50\ncompute_52\r\nsm_90a\ngarbage compute_99\n\ncompute_50\n")
	if strings.Join(got, ",") != "compute_50,compute_52,sm_90a" {
		t.Errorf("got %v", got)
	}
}

func TestParseClBanner(t *testing.T) {
	cases := map[string]ClBanner{
		"cl/cl-19.16.27048-x64-zh-CN.txt":                              {"19.16.27048", "x64"},
		"cl/cl-19.32.31332-x86-zh-CN.txt":                              {"19.32.31332", "x86"},
		"cl/cl-19.41.34123-x64-vcvarsall-17.11.5.txt":                  {"19.41.34123", "x64"},
		"cl/cl-19.50.35730-x86-compile-link.txt":                       {"19.50.35730", "x86"},
		"cl/cl-19.51.36252-and-19.44.35228-bare-crlf.txt":              {"19.51.36252", "x64"},
		"cl/cl-19.44.35213-x64-configure-dash-version.txt":             {"19.44.35213", "x64"},
		"cl/cl-19.41.34120-x86-and-clang-17.0.3-vs2022-enterprise.txt": {"19.41.34120", "x86"},
	}
	for f, want := range cases {
		if got := ParseClBanner(fixture(t, f)); got != want {
			t.Errorf("%s: %+v, want %+v", f, got, want)
		}
	}
	// the linker banner alone is not a compiler banner
	if got := ParseClBanner("Microsoft (R) Incremental Linker Version 14.41.34123.0\n"); got.Version != "" {
		t.Errorf("linker banner parsed as cl: %+v", got)
	}
}

func TestParseCompilers(t *testing.T) {
	if v := ParseGCCVersion("g++ (Debian 12.2.0-14) 12.2.0\nCopyright (C) 2022 Free Software Foundation, Inc.\n"); v != "12.2.0" {
		t.Errorf("debian g++: %q", v)
	}
	if v := ParseGCCVersion("x86_64-w64-mingw32-g++.exe (Rev2, Built by MSYS2 project) 13.2.0\n"); v != "13.2.0" {
		t.Errorf("msys2 g++: %q", v)
	}
	if v := ParseGCCVersion("gcc-11 (Debian 11.3.0-12) 11.3.0\n"); v != "11.3.0" {
		t.Errorf("gcc-11: %q", v)
	}
	v, tgt := ParseClangVersion(fixture(t, "cl/clang-cl-13.0.0-llvm-v-cc1.txt"))
	if v != "13.0.0" || tgt != "x86_64-pc-windows-msvc" {
		t.Errorf("clang-cl: %q %q", v, tgt)
	}
	if v, _ := ParseClangVersion(fixture(t, "cl/clang-18.1.8-llvm-version-ru.txt")); v != "18.1.8" {
		t.Errorf("localized clang: %q", v)
	}
}

func TestParseBuildToolVersions(t *testing.T) {
	if v := ParseCMakeVersion("cmake version 3.31.5\n\nCMake suite maintained"); v != "3.31.5" {
		t.Errorf("cmake: %q", v)
	}
	if v := ParseCMakeVersion("cmake version 4.0.0-rc3\n"); v != "4.0.0-rc3" {
		t.Errorf("cmake rc: %q", v)
	}
	if v := ParseNinjaVersion("1.11.1\n"); v != "1.11.1" {
		t.Errorf("ninja: %q", v)
	}
	if v := ParseNinjaVersion("ninja: error: loading 'build.ninja'\n"); v != "" {
		t.Errorf("ninja error: %q", v)
	}
	if v := ParseGitVersion("git version 2.45.1.windows.1\n"); v != "2.45.1" {
		t.Errorf("git: %q", v)
	}
	if v := ParseLddVersion("ldd (Debian GLIBC 2.36-9+deb12u10) 2.36\nCopyright"); v != "2.36" {
		t.Errorf("ldd: %q", v)
	}
}

func TestParseVswhere(t *testing.T) {
	insts, ok := ParseVswhere(fixture(t, "vswhere/vs2022-community-17.13.4-arm64.txt"))
	if !ok || len(insts) != 1 || insts[0].ProductVersion != "17.13.4" || insts[0].DisplayName != "Visual Studio Community 2022" ||
		insts[0].Path != `C:\Program Files\Microsoft Visual Studio\2022\Community` || insts[0].InstanceID != "03d9ba2c" {
		t.Errorf("complete: %v %+v", ok, insts)
	}
	insts, ok = ParseVswhere(fixture(t, "vswhere/vs2026-buildtools-18.10.12224.181-agent-condensed.txt"))
	if !ok || len(insts) != 1 || insts[0].InstallVersion != "18.10.12224.181" {
		t.Errorf("single object: %v %+v", ok, insts)
	}
	// cut short mid-object: the lenient pass still finds the instance
	full := fixture(t, "vswhere/vs2022-buildtools-17.14.28-no-vctools.txt")
	insts, ok = ParseVswhere(full[:len(full)/2])
	if ok || len(insts) != 1 || insts[0].InstallVersion != "17.14.37027.9" || insts[0].Path != `C:\Program Files (x86)\Microsoft Visual Studio\2022\BuildTools` {
		t.Errorf("truncated: %v %+v", ok, insts)
	}
	if insts, _ := ParseVswhere("\xff\xfe garbage"); len(insts) != 0 {
		t.Errorf("garbage: %+v", insts)
	}
	// valid JSON, but an entry without installationPath is no instance
	if insts, ok := ParseVswhere(`[{}, {"displayName": "x"}]`); !ok || len(insts) != 0 {
		t.Errorf("pathless entries: %v %+v", ok, insts)
	}
}

func TestParseSMI(t *testing.T) {
	gpus, drv := ParseSMIQuery("0, NVIDIA GeForce RTX 4090, GPU-abc, 00000000:01:00.0, 560.94, 24564, 23000, 8.9\n1, Tesla P4, GPU-def, 00000000:02:00.0, 560.94, 7680, [N/A], [N/A]\nField \"compute_cap\" is not a valid field to query.\n")
	if drv != "560.94" || len(gpus) != 2 || gpus[0].ComputeCapability != "8.9" || gpus[0].FreeMiB != 23000 || gpus[1].ComputeCapability != "" || gpus[1].FreeMiB != 0 {
		t.Errorf("query: %q %+v", drv, gpus)
	}
	h := ParseSMITable(fixture(t, "nvidia-smi/win-610.62-rtx2080super-idle-KMD-header.txt"))
	if h.Driver != "610.62" || h.CUDA != "13.3" || len(h.GPUs) != 1 || h.GPUs[0].TotalMiB != 8192 || h.GPUs[0].FreeMiB != 8192-797 {
		t.Errorf("R610 table: %+v", h)
	}
	h = ParseSMITable(fixture(t, "nvidia-smi/wsl2-545.46-driver-546.80-cuda-version-ERR.txt"))
	if h.CUDA != "ERR!" {
		t.Errorf("ERR! table: %+v", h)
	}
	h = ParseSMITable(fixture(t, "nvidia-smi/win-460.15-tcc-wddm-via-wsl.txt"))
	if h.Driver == "" || len(h.GPUs) == 0 {
		t.Errorf("460 TCC/WDDM table: %+v", h)
	}
}

func TestParseClinfo(t *testing.T) {
	p := ParseClinfo(fixture(t, "opencl-vulkan/clinfo-wsl-rocm-rx7900xtx-khronos-style.txt"))
	if len(p) == 0 || len(p[0].Devices) == 0 || p[0].Devices[0].Type != "GPU" {
		t.Fatalf("khronos: %+v", p)
	}
	l := ParseClinfoList(fixture(t, "opencl-vulkan/clinfo-l-win-nvidia-plus-intel-cpu-runtime.txt"))
	if len(l) != 2 || len(l[1].Devices) != 1 || !strings.Contains(l[1].Devices[0].Name, "Xeon") {
		t.Errorf("list: %+v", l)
	}
	if p := ParseClinfo("Number of platforms                               0\n"); len(p) != 0 {
		t.Errorf("zero platforms: %+v", p)
	}
}

func TestParseLinuxTools(t *testing.T) {
	libs := ParseLdconfigLibs(fixture(t, "wsl/ldconfig-p-grep-libcuda-and-ls-usr-lib-wsl-lib.txt"), "libcuda.so")
	if len(libs) != 1 || libs[0] != "/usr/lib/wsl/lib/libcuda.so.1" {
		t.Errorf("ldconfig: %v", libs)
	}
	pk := ParseDpkgInstalled("Desired=Unknown\n||/ Name Version\n+++-====\nii  libcuda1:amd64   535.261.03-1  amd64  NVIDIA CUDA Driver Library\nrc  nvidia-driver-440  440.100 amd64 x\nii  nvidia-driver-535  535.1 amd64 x\nii  cmake 3.25 amd64 x\n", facts.WSL.DriverPackagePrefixes)
	if strings.Join(pk, ",") != "libcuda1 535.261.03-1,nvidia-driver-535 535.1" {
		t.Errorf("dpkg: %v", pk)
	}
	if g := ParseROCmGFX("  Name:                    gfx1100\n  Name: gfx1100\n  Name: gfx90a\n"); strings.Join(g, ",") != "gfx1100,gfx90a" {
		t.Errorf("rocminfo: %v", g)
	}
	if n := ParseOSRelease("NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"); n != "Debian GNU/Linux 12 (bookworm)" {
		t.Errorf("os-release: %q", n)
	}
}

func TestIsWSLKernel(t *testing.T) {
	cases := map[string]int{
		fixture(t, "wsl/proc-version-wsl2-5.4.72-microsoft-standard-WSL2.txt"): 2,
		"Linux version 4.19.84-microsoft-standard+ (uname@DESKTOP)":            2,
		"Linux version 3.4.0-Microsoft (Microsoft@Microsoft.com)":              1,
		"4.4.0-19041-Microsoft": 1,
		"Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org)": 0,
	}
	for in, want := range cases {
		if got := IsWSLKernel(in); got != want {
			t.Errorf("%q: %d, want %d", in, got, want)
		}
	}
}

func TestParseVulkanSummary(t *testing.T) {
	d := ParseVulkanSummary(fixture(t, "opencl-vulkan/vulkaninfo-summary-linux-intel-mesa-plus-rtx4070-laptop.txt"))
	if len(d) != 2 || d[0].Type != "INTEGRATED_GPU" || d[0].VendorID != "0x8086" || d[1].Driver != "NVIDIA 580.95.05" {
		t.Errorf("%+v", d)
	}
}
