package failures

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
)

// The tests below run the real tools installed on this machine (CI installs
// them with scripts/deps.sh) and check that today's output is still
// recognised, not only the recordings in testdata/logs.

func runTool(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	res, err := proc.Exec{}.Run(context.Background(), proc.Cmd{Name: name, Args: args, Dir: dir, Timeout: 60 * time.Second})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res.Combined()
}

func cudaSource(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "k.cu"), []byte("__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func expectIDs(t *testing.T, log string, want ...string) {
	t.Helper()
	d := Default().DiagnoseString(log)
	var got []string
	for _, f := range d.Findings {
		got = append(got, f.ID)
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v in:\n%s", got, want, log)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v in:\n%s", got, want, log)
		}
	}
}

func TestLiveNvccWithTooNewGcc(t *testing.T) {
	testutil.Need(t, "nvcc", "g++-12")
	dir := cudaSource(t)
	out := runTool(t, dir, "nvcc", "-ccbin", "g++-12", "-c", "k.cu", "-o", "k.o")
	if !contains(out, "unsupported GNU version") {
		t.Skipf("this nvcc accepts g++-12 (not Debian's 11.8): %s", out)
	}
	expectIDs(t, out, "nvcc-unsupported-gcc")
}

func TestLiveNvccUnknownArch(t *testing.T) {
	testutil.Need(t, "nvcc")
	out := runTool(t, cudaSource(t), "nvcc", "-arch=sm_100", "-c", "k.cu", "-o", "k.o")
	if !contains(out, "sm_100") {
		t.Skipf("this nvcc knows sm_100: %s", out)
	}
	expectIDs(t, out, "nvcc-arch-too-new")
}

func TestLiveCMakeUnusedBackendOption(t *testing.T) {
	testutil.Need(t, "cmake", "cc")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "CMakeLists.txt"), []byte("cmake_minimum_required(VERSION 3.14)\nproject(tiny C)\nadd_executable(tiny main.c)\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.c"), []byte("int main(void){return 0;}\n"), 0o644)
	out := runTool(t, dir, "cmake", "-S", ".", "-B", "build", "-DLLAMA_CUBLAS=ON")
	expectIDs(t, out, "cmake-flag-ignored")
}

func TestLiveEngineRemovedFlag(t *testing.T) {
	dir := testutil.EngineDir(t, "llama-server")
	server := filepath.Join(dir, "llama-server")
	expectIDs(t, runTool(t, t.TempDir(), server, "-m", "none.gguf", "--draft-max", "4"), "engine-flag-removed")
	bad := filepath.Join(t.TempDir(), "bad.gguf")
	os.WriteFile(bad, []byte("<!DOCTYPE html><html>not a model</html>"), 0o644)
	expectIDs(t, runTool(t, t.TempDir(), filepath.Join(dir, "llama-cli"), "-m", bad, "-p", "hi", "-n", "1", "--no-warmup"), "model-file-invalid")
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
