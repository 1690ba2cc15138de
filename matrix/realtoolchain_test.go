package matrix

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
)

// The matrix against a real CUDA toolkit where one is installed (CI installs
// Debian's nvidia-cuda-toolkit 11.8 through scripts/deps.sh): the installed
// nvcc's version must be a known release, its host_config.h must enforce
// exactly the limits the data says, and nvcc must reject the gcc Resolve
// rejects and accept the host compiler Resolve picks. Compiling needs no GPU.
func TestRealToolchainAgreesWithMatrix(t *testing.T) {
	var run proc.Runner = proc.Exec{}
	nvcc := testutil.Tool(t, "nvcc")
	ctx := context.Background()
	res, err := run.Run(ctx, proc.Cmd{Name: nvcc, Args: []string{"--version"}, Timeout: 30 * time.Second})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("nvcc --version: %v %s", err, res.Combined())
	}
	mm := regexp.MustCompile(`release (\d+\.\d+), (V\d+\.\d+\.\d+)`).FindStringSubmatch(string(res.Stdout))
	if mm == nil {
		t.Fatalf("no version in nvcc output: %s", res.Stdout)
	}
	m := Default()
	tk, ok := m.Toolkit(mm[2])
	if !ok || tk.MinorVersion() != mm[1] {
		t.Fatalf("installed nvcc %s is not in the matrix", mm[2])
	}

	header := findHostConfig(nvcc)
	if header == "" {
		t.Fatal("nvcc is installed but include/crt/host_config.h is not found")
	}
	b, err := os.ReadFile(header)
	if err != nil {
		t.Fatal(err)
	}
	lim := ParseHostConfig(string(b))
	gccMax, _, ok := m.GCCMaxMajor(tk)
	if !ok || lim.GCCMaxMajor != gccMax {
		t.Errorf("%s enforces gcc ≤ %d, the matrix says %d for CUDA %s", header, lim.GCCMaxMajor, gccMax, tk.MinorVersion())
	}
	if clangMax, _, ok := m.ClangMaxMajor(tk); ok && lim.ClangMaxMajor != clangMax {
		t.Errorf("%s enforces clang ≤ %d, the matrix says %d", header, lim.ClangMaxMajor, clangMax)
	}
	if tk.MSCVerMin != nil && (lim.MSCVerMin != *tk.MSCVerMin || lim.MSCVerMaxExclusive != *tk.MSCVerMaxExclusive) {
		t.Errorf("%s accepts _MSC_VER [%d,%d), the matrix says [%d,%d)", header, lim.MSCVerMin, lim.MSCVerMaxExclusive, *tk.MSCVerMin, *tk.MSCVerMaxExclusive)
	}

	// Compile a kernel with a too-new and with the chosen g++.
	var avail []int
	for n := 9; n <= 20; n++ {
		if _, err := run.LookPath("g++-" + strconv.Itoa(n)); err == nil {
			avail = append(avail, n)
		}
	}
	tooNew := gccMax + 1
	if !contains(avail, tooNew) {
		testutil.Missing(t, "g++-%d not installed: cannot check that nvcc %s rejects it", tooNew, mm[2])
	}
	r := m.Resolve(Query{OS: "linux", GCC: strconv.Itoa(tooNew), AvailableGCC: avail, GPUs: []GPUQuery{{CC: "7.5"}}, Toolkits: []string{mm[2]}})
	if !r.OK || r.HostCompiler == "" || r.CUDAArchitectures != "75-real" {
		t.Fatalf("Resolve with g++-%d default: %+v", tooNew, r)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "k.cu")
	if err := os.WriteFile(src, []byte("__global__ void k(){}\nint main(){k<<<1,1>>>();return 0;}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	compile := func(ccbin string) proc.Result {
		res, err := run.Run(ctx, proc.Cmd{Name: nvcc, Dir: dir, Timeout: 2 * time.Minute,
			Args: []string{"-ccbin", ccbin, "-gencode", "arch=compute_75,code=sm_75", "-c", "k.cu", "-o", "k.o"}})
		if err != nil {
			t.Fatalf("nvcc -ccbin %s: %v", ccbin, err)
		}
		return res
	}
	if res := compile("g++-" + strconv.Itoa(tooNew)); res.ExitCode == 0 || !strings.Contains(res.Combined(), "unsupported GNU version") {
		t.Errorf("nvcc accepted g++-%d, which the matrix rejects: exit %d %s", tooNew, res.ExitCode, res.Combined())
	}
	if res := compile(r.HostCompiler); res.ExitCode != 0 {
		t.Errorf("nvcc rejected %s, the host compiler Resolve picked: %s", r.HostCompiler, res.Combined())
	}
}

// findHostConfig looks where NVIDIA's layout (bin/../include) and Debian's
// (/usr/include) put the header.
func findHostConfig(nvcc string) string {
	real, err := filepath.EvalSymlinks(nvcc)
	if err != nil {
		real = nvcc
	}
	for _, p := range []string{
		filepath.Join(filepath.Dir(filepath.Dir(real)), "include", "crt", "host_config.h"),
		"/usr/lib/nvidia-cuda-toolkit/include/crt/host_config.h",
		"/usr/include/crt/host_config.h",
	} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

func contains(l []int, n int) bool {
	for _, v := range l {
		if v == n {
			return true
		}
	}
	return false
}

func TestParseHostConfigSnippets(t *testing.T) {
	// Lines as CUDA 11.8's and 12.6's headers write them (HC_118, HC_126 in sources.json).
	h118 := "#if defined(__GNUC__)\n\n#if __GNUC__ > 11\n#error -- unsupported GNU version!\n#endif /* __GNUC__ > 11 */\n" +
		"#if (__clang_major__ >= 15) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3))\n" +
		"#if _MSC_VER < 1910 || _MSC_VER >= 1940\n"
	if got := ParseHostConfig(h118); got != (HostConfigLimits{11, 14, 1910, 1940}) {
		t.Errorf("11.8: %+v", got)
	}
	h126 := "#if __GNUC__ > 13\n#if (__clang_major__ >= 19) || (__clang_major__ < 3)\n#if _MSC_VER < 1910 || _MSC_VER >= 1950\n"
	if got := ParseHostConfig(h126); got != (HostConfigLimits{13, 18, 1910, 1950}) {
		t.Errorf("12.6: %+v", got)
	}
	if got := ParseHostConfig("#if __GNUC__ > 1000000000000\n"); got != (HostConfigLimits{}) {
		t.Errorf("overlong number accepted: %+v", got)
	}
}

func FuzzParseHostConfig(f *testing.F) {
	f.Add("#if __GNUC__ > 11\n#if (__clang_major__ >= 15)\n#if _MSC_VER < 1910 || _MSC_VER >= 1940\n")
	f.Add("")
	f.Add("#if __clang_major__ >= 0\n")
	f.Fuzz(func(t *testing.T, s string) {
		l := ParseHostConfig(s)
		if l.GCCMaxMajor < 0 || l.ClangMaxMajor < 0 || l.GCCMaxMajor > 999 || l.MSCVerMaxExclusive > 9999 {
			t.Fatalf("out of range: %+v", l)
		}
	})
}
