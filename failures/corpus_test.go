package failures

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/recorded"
)

const corpusDir = "../testdata/logs"

// logBody drops the fixture header (everything up to the first "# ---").
func logBody(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return recorded.Body(string(b))
}

func readExpected(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, "EXPECTED"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		file, ids, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("EXPECTED: bad line %q", line)
		}
		fs := strings.Fields(ids)
		if len(fs) == 1 && fs[0] == "-" {
			fs = nil
		}
		want[file] = fs
	}
	return want
}

// TestCorpus diagnoses every log of testdata/logs and compares the IDs, in
// order, with EXPECTED; every log must be listed and every listed log exist.
func TestCorpus(t *testing.T) {
	kb := Default()
	want := readExpected(t)
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.log"))
	if len(files) < 90 {
		t.Fatalf("corpus has %d logs, expected the full set", len(files))
	}
	seen := map[string]bool{}
	for _, p := range files {
		name := filepath.Base(p)
		seen[name] = true
		exp, ok := want[name]
		if !ok {
			t.Errorf("%s: not listed in EXPECTED", name)
			continue
		}
		d := kb.DiagnoseString(logBody(t, p))
		var got []string
		for _, f := range d.Findings {
			got = append(got, f.ID)
			if len(f.Lines) == 0 || f.Excerpt == "" || f.Cause == "" || f.Fix == "" || f.Source == "" {
				t.Errorf("%s: finding %s lacks lines/excerpt/cause/fix/source: %+v", name, f.ID, f)
			}
		}
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("%s: got %v, want %v", name, got, exp)
		}
		if len(exp) == 0 && strings.HasPrefix(name, "ok-") && len(d.Findings) != 0 {
			t.Errorf("%s: negative log produced findings", name)
		}
		if len(exp) == 0 && strings.HasPrefix(name, "ref-cuda") && len(d.UnmatchedErrors) == 0 {
			t.Errorf("%s: nothing matched but no error-looking lines were listed", name)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("EXPECTED lists %s, which does not exist", name)
		}
	}
}

// TestCorpusCoversEveryID: each ID of the knowledge base is the expected
// diagnosis of at least one log, or derived from one with a snapshot (those
// are tested in facts_test.go).
func TestCorpusCoversEveryID(t *testing.T) {
	want := readExpected(t)
	covered := map[string]bool{"wsl-linux-driver-shadowing": true} // derived only, see TestDeriveWSLShadowing
	for _, ids := range want {
		for _, id := range ids {
			covered[id] = true
		}
	}
	// The public corpus's dev split counts too (never the held-out split).
	for _, l := range readManifest(t).Logs {
		if l.Split == "dev" {
			for _, id := range l.Expect {
				covered[id] = true
			}
		}
	}
	for _, e := range Default().Entries() {
		if !covered[e.ID] {
			t.Errorf("no log in testdata/logs or the corpus's dev split is expected to produce %s", e.ID)
		}
	}
	negatives := 0
	for name, ids := range want {
		if strings.HasPrefix(name, "ok-") && len(ids) == 0 {
			negatives++
		}
	}
	if negatives < 4 {
		t.Errorf("only %d negative logs", negatives)
	}
}

func TestExcerptAndLines(t *testing.T) {
	d := Default().DiagnoseString(logBody(t, filepath.Join(corpusDir, "here-cmake-nvcc118-gcc12.log")))
	if len(d.Findings) != 1 {
		t.Fatalf("findings: %+v", d.Findings)
	}
	f := d.Findings[0]
	if f.ID != "nvcc-unsupported-gcc" || f.Lines[0] != 56 {
		t.Errorf("got %s at %v, want nvcc-unsupported-gcc at line 56 (the nested error, not the CMake wrapper at 2)", f.ID, f.Lines)
	}
	if !strings.Contains(f.Excerpt, "host_config.h:132:2: error: #error -- unsupported GNU") {
		t.Errorf("excerpt %q", f.Excerpt)
	}
}

func TestNothingMatchedListsFirstErrors(t *testing.T) {
	log := "-- Looking for pthread_create in pthread - not found\nsome/file.cpp:12:3: error: expected ';' before '}' token\n" +
		"ninja: build stopped: subcommand failed.\n"
	d := Default().DiagnoseString(log)
	if len(d.Findings) != 0 {
		t.Fatalf("guessed: %+v", d.Findings)
	}
	if len(d.UnmatchedErrors) != 2 || d.UnmatchedErrors[0].Line != 2 || d.UnmatchedErrors[1].Line != 3 {
		t.Errorf("unmatched: %+v", d.UnmatchedErrors)
	}
}

func TestUnmatchedAreBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 500; i++ {
		b.WriteString("x.c:1:1: error: something odd\n")
	}
	d := Default().DiagnoseString(b.String())
	if len(d.UnmatchedErrors) != maxUnmatched {
		t.Errorf("got %d unmatched lines, want %d", len(d.UnmatchedErrors), maxUnmatched)
	}
	if d.Lines != 500 {
		t.Errorf("lines = %d", d.Lines)
	}
}

func TestWrapperAloneIsReported(t *testing.T) {
	log := "CMake Error at /usr/share/cmake-3.25/Modules/CMakeTestCUDACompiler.cmake:103 (message):\n  The CUDA compiler\n\n    \"/usr/bin/nvcc\"\n\n  is not able to compile a simple test program.\n"
	d := Default().DiagnoseString(log)
	if len(d.Findings) != 1 || d.Findings[0].ID != "cuda-compiler-test-failed" || !slices.Contains(d.Findings[0].Lines, 6) {
		t.Errorf("%+v", d.Findings)
	}
}

func TestLinkAfterCompileIsNoise(t *testing.T) {
	d := Default().DiagnoseString(logBody(t, filepath.Join(corpusDir, "sample-linux-compile-error-then-link.log")))
	if len(d.Findings) != 1 || d.Findings[0].ID != "nvcc-unsupported-gcc" {
		t.Errorf("%+v", d.Findings)
	}
	// The same link error alone is the diagnosis.
	d = Default().DiagnoseString("ggml-cuda.cu:(.text+0x1a2c): undefined reference to `cuMemCreate'\n")
	if len(d.Findings) != 1 || d.Findings[0].ID != "cuda-driver-lib-link" {
		t.Errorf("%+v", d.Findings)
	}
}

func TestSymptomDropped(t *testing.T) {
	d := Default().DiagnoseString(logBody(t, filepath.Join(corpusDir, "sample-ggml-backend-mismatch.log")))
	if len(d.Findings) != 1 || d.Findings[0].ID != "ggml-backend-mismatch" {
		t.Errorf("%+v", d.Findings)
	}
}

func TestArchNumberDecidesTooNewOrDropped(t *testing.T) {
	for arch, want := range map[string]string{"30": "nvcc-arch-dropped", "61": "nvcc-arch-dropped", "75": "nvcc-arch-too-new", "120a": "nvcc-arch-too-new"} {
		d := Default().DiagnoseString("nvcc fatal   : Unsupported gpu architecture 'compute_" + arch + "'\n")
		if len(d.Findings) != 1 || d.Findings[0].ID != want {
			t.Errorf("compute_%s: %+v, want %s", arch, d.Findings, want)
		}
	}
}

func TestWarningsAfterErrors(t *testing.T) {
	log := "nvcc warning : Cannot find valid GPU for '-arch=native', default arch is used\n" +
		"ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected\n"
	d := Default().DiagnoseString(log)
	if len(d.Findings) != 2 || d.Findings[0].ID != "cuda-no-device" || d.Findings[1].Severity != SeverityWarning {
		t.Errorf("%+v", d.Findings)
	}
}

func TestLogFactsFromCMake(t *testing.T) {
	d := Default().DiagnoseString(logBody(t, filepath.Join(corpusDir, "ref-nvcc-unsupported-msvc-vs2026-msvc-19.50-cuda-12.8-llamacpp-17547-win.log")))
	if len(d.Findings) != 1 {
		t.Fatalf("%+v", d.Findings)
	}
	got := Default().FactSentenceFor(d.Findings[0].ID, d.Findings[0].Facts)
	if got != "Facts that may matter: the log shows nvcc 12.8.61; the log shows the host compiler MSVC 19.50.35719.0." {
		t.Errorf("facts = %q", got)
	}
}

type errReader struct{ n int }

func (r *errReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		r.n++
		return copy(p, "no CUDA-capable device is detected\n"), nil
	}
	return 0, os.ErrClosed
}

func TestReadErrorKeepsWhatWasRead(t *testing.T) {
	d, err := Default().Diagnose(&errReader{})
	if err == nil {
		t.Fatal("want the read error")
	}
	if len(d.Findings) != 1 || d.Findings[0].ID != "cuda-no-device" {
		t.Errorf("%+v", d.Findings)
	}
}

func TestHugeLineIsCut(t *testing.T) {
	log := strings.Repeat("A", 1<<20) + "\nnvcc fatal   : Cannot find compiler 'cl.exe' in PATH\n"
	d := Default().DiagnoseString(log)
	if len(d.Findings) != 1 || d.Findings[0].Lines[0] != 2 {
		t.Errorf("%+v", d.Findings)
	}
}

func TestCUDAErrorNames(t *testing.T) {
	for line, want := range map[string]string{
		"LLAMACTL load ok=0 api=cudaMalloc code=2 name=cudaErrorMemoryAllocation msg=\"out of memory\"": "gpu-out-of-memory",
		"error: cudaErrorNoKernelImageForDevice in kernel launch":                                       "cuda-no-kernel-image",
		"cuInit failed: CUDA_ERROR_STUB_LIBRARY":                                                        "cuda-no-device",
		"cudaGetDeviceCount returned 35 (cudaErrorInsufficientDriver)":                                  "cuda-driver-too-old",
		"/usr/bin/ld: cannot find -lcudart: No such file or directory":                                  "cuda-link-libpath",
		"CUDA error: the provided PTX was compiled with an unsupported toolchain.":                      "cuda-driver-too-old",
		"ggml_cuda_init: failed to initialize CUDA: all CUDA-capable devices are busy or unavailable":   "cuda-no-device",
	} {
		d := Default().DiagnoseString(line + "\n")
		if len(d.Findings) != 1 || d.Findings[0].ID != want {
			t.Errorf("%q: %+v, want %s", line, d.Findings, want)
		}
	}
}

// link.exe names the library in the console's language and code page: the
// quotes differ (zh-CN “…”, in UTF-8 or GBK bytes), the name does not.
func TestLNK1181AnyQuotes(t *testing.T) {
	for _, line := range []string{
		"LINK : fatal error LNK1181: cannot open input file 'cudart.lib'",
		"LINK : fatal error LNK1181: 无法打开输入文件“cublas.lib”",
		"LINK : fatal error LNK1181: \xce\xde\xb7\xa8\xb4\xf2\xbf\xaa\xca\xe4\xc8\xeb\xce\xc4\xbc\xfe\xa1\xb0cuda.lib\xa1\xb1", // GBK
		`LINK : fatal error LNK1181: cannot open input file 'C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\lib\x64\cudart.lib'`,
	} {
		d := Default().DiagnoseString(line + "\n")
		if len(d.Findings) != 1 || d.Findings[0].ID != "cuda-link-libpath" {
			t.Errorf("%q: %+v", line, d.Findings)
		}
	}
	// ggml's own library missing is not a CUDA library path problem.
	if d := Default().DiagnoseString("LINK : fatal error LNK1181: cannot open input file 'ggml\\src\\ggml-cuda\\ggml-cuda.lib'\n"); len(d.Findings) != 0 {
		t.Errorf("ggml-cuda.lib: %+v", d.Findings)
	}
}

// Since llama.cpp sets CMAKE_WARN_UNUSED_CLI, an unused backend option is an error (the build would be CPU-only);
// the old deprecation warning of the same option is only a warning.
func TestIgnoredBackendOptionSeverity(t *testing.T) {
	for file, want := range map[string]string{
		"here-cmake-unused-backend-option.log":                                    SeverityError,
		"ref-cmake-flag-ignored-llama-cuda-deprecated-cpu-only-llamacpp-8155.log": SeverityWarning,
	} {
		d := Default().DiagnoseString(logBody(t, filepath.Join(corpusDir, file)))
		if len(d.Findings) != 1 || d.Findings[0].Severity != want {
			t.Errorf("%s: %+v", file, d.Findings)
		}
	}
}
