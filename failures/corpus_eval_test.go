package failures

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The public corpus (testdata/logs/corpus): logs from issue threads with the
// root cause established in the thread, collected in batches. Each batch's
// held-out third ("test" for batch 1, "test2" for batch 2) was drawn once,
// before the matcher work of that batch (split.py, seeds in the manifest);
// matchers are tuned on "dev" only. TestCorpusDev checks every dev log;
// TestEvalHeldout prints the figures of each held-out split and of all of them
// together (per-log detail only with LLAMACTL_EVAL_DETAIL=1, so tuning never
// looks at it) and asserts their floors.
const publicCorpusDir = "../testdata/logs/corpus"

type corpusLog struct {
	Slug     string   `json:"slug"`
	Split    string   `json:"split"`
	Stratum  string   `json:"stratum"`
	URL      string   `json:"url"`
	Date     string   `json:"date"`
	Tool     string   `json:"tool"`
	OS       string   `json:"os"`
	Lang     string   `json:"lang"`
	Kind     string   `json:"kind"`
	Cause    string   `json:"cause"`
	Evidence string   `json:"evidence"`
	File     string   `json:"file"`
	Expect   []string `json:"expect"`
	Batch    int      `json:"batch"`
}

// corpusBatch is one collection of logs and the seed of its held-out draw.
type corpusBatch struct {
	Batch   int            `json:"batch"`
	Seed    int64          `json:"seed"`
	HeldOut string         `json:"held_out"`
	Method  string         `json:"method"`
	Counts  map[string]int `json:"counts"`
}

type corpusManifest struct {
	Schema  int            `json:"schema"`
	Seed    int64          `json:"seed"`
	Counts  map[string]int `json:"counts"`
	Batches []corpusBatch  `json:"batches"`
	Logs    []corpusLog    `json:"logs"`
}

// heldOutSplits are the held-out splits in batch order.
func (m corpusManifest) heldOutSplits() []string {
	var s []string
	for _, b := range m.Batches {
		s = append(s, b.HeldOut)
	}
	return s
}

func readManifest(t testing.TB) corpusManifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(publicCorpusDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m corpusManifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// verdict is how one log was diagnosed against its established cause.
type verdict struct {
	hit            bool     // an expected ID was named
	confidentWrong []string // IDs named as certain that the thread does not support
	hedgedWrong    []string // IDs named as "probable" that the thread does not support
	got            []string
	findings       int
	right          int // findings whose ID is expected
}

// correct: the established cause was named (or, when the thread's cause has
// no ID or the log is a success, nothing was named), and nothing wrong was.
func (v verdict) correct(expect []string) bool {
	if len(v.confidentWrong)+len(v.hedgedWrong) > 0 {
		return false
	}
	return len(expect) == 0 || v.hit
}

func judgeLog(kb *KB, log string, expect []string) verdict {
	d := kb.DiagnoseString(log)
	want := map[string]bool{}
	for _, id := range expect {
		want[id] = true
	}
	var v verdict
	for _, f := range d.Findings {
		v.got = append(v.got, f.ID)
		v.findings++
		switch {
		case want[f.ID]:
			v.hit = true
			v.right++
		case f.Confidence == ConfidenceProbable:
			v.hedgedWrong = append(v.hedgedWrong, f.ID)
		default:
			v.confidentWrong = append(v.confidentWrong, f.ID)
		}
	}
	return v
}

type figures struct {
	logs, correct, withCause, hits, findings, right, confidentWrong, hedgedWrong, okLogs, okClean int
}

func (f figures) String() string {
	pct := func(a, b int) string {
		if b == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(a)/float64(b), a, b)
	}
	return fmt.Sprintf("logs %d: correct %s; recall %s; precision %s; confident mistakes %d; hedged mistakes %d; success logs silent %s",
		f.logs, pct(f.correct, f.logs), pct(f.hits, f.withCause), pct(f.right, f.findings), f.confidentWrong, f.hedgedWrong, pct(f.okClean, f.okLogs))
}

// evaluate judges the logs of the given splits (all of them when a log is in
// any); keep, when not nil, says which batches' logs count.
func evaluate(t *testing.T, kb *KB, splits []string, keep func(batch int) bool, detail bool) (figures, []string) {
	return evaluateLogs(t, kb, splits, func(l corpusLog) bool { return keep == nil || keep(l.Batch) }, detail)
}

func evaluateLogs(t *testing.T, kb *KB, splits []string, keep func(corpusLog) bool, detail bool) (figures, []string) {
	m := readManifest(t)
	in := map[string]bool{}
	for _, s := range splits {
		in[s] = true
	}
	var fig figures
	var lines []string
	for _, l := range m.Logs {
		if !in[l.Split] || !keep(l) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(publicCorpusDir, l.File))
		if err != nil {
			t.Fatal(err)
		}
		v := judgeLog(kb, string(b), l.Expect)
		fig.logs++
		fig.findings += v.findings
		fig.right += v.right
		if len(l.Expect) > 0 {
			fig.withCause++
			if v.hit {
				fig.hits++
			}
		}
		if l.Kind == "ok" {
			fig.okLogs++
			if v.findings == 0 {
				fig.okClean++
			}
		}
		if len(v.confidentWrong) > 0 {
			fig.confidentWrong++
		}
		if len(v.hedgedWrong) > 0 {
			fig.hedgedWrong++
		}
		if v.correct(l.Expect) {
			fig.correct++
		} else if detail {
			lines = append(lines, fmt.Sprintf("%s: want %v, got %v", l.File, l.Expect, v.got))
		}
	}
	sort.Strings(lines)
	return fig, lines
}

func TestCorpusManifest(t *testing.T) {
	m := readManifest(t)
	if m.Schema != 1 || m.Seed == 0 {
		t.Fatalf("manifest schema %d seed %d", m.Schema, m.Seed)
	}
	splits := append([]string{"dev"}, m.heldOutSplits()...)
	known := map[string]bool{}
	seeds := map[int64]bool{}
	for _, b := range m.Batches {
		known[b.HeldOut] = true
		if b.Seed == 0 || seeds[b.Seed] || b.Method == "" {
			t.Errorf("batch %d: seed %d (each batch draws with its own recorded seed), method %q", b.Batch, b.Seed, b.Method)
		}
		seeds[b.Seed] = true
	}
	if len(m.Batches) < 4 || !known["test"] || !known["test2"] || !known["test3"] || !known["test4"] {
		t.Errorf("batches %+v: expected batches 1 (test), 2 (test2), 3 (test3) and 4 (test4)", m.Batches)
	}
	urls := map[string]string{}
	ids := map[string]bool{}
	for _, e := range Default().Entries() {
		ids[e.ID] = true
	}
	counts := map[string]int{}
	seen := map[string]bool{}
	for _, l := range m.Logs {
		counts[l.Split]++
		if seen[l.File] {
			t.Errorf("%s listed twice", l.File)
		}
		if prev, ok := urls[strings.TrimSuffix(l.URL, "/")]; ok {
			t.Errorf("%s and %s come from the same thread %s", prev, l.File, l.URL)
		}
		urls[strings.TrimSuffix(l.URL, "/")] = l.File
		if l.Batch < 1 || l.Batch > len(m.Batches) || (l.Split != "dev" && l.Split != m.Batches[l.Batch-1].HeldOut) {
			t.Errorf("%s: batch %d, split %s", l.File, l.Batch, l.Split)
		}
		seen[l.File] = true
		if !strings.HasPrefix(l.File, l.Split+"/") {
			t.Errorf("%s is not in its split's folder %s", l.File, l.Split)
		}
		if l.URL == "" || l.Date == "" || l.Tool == "" || l.Cause == "" || l.Evidence == "" || (l.Kind != "ok" && l.Kind != "fail") {
			t.Errorf("%s: incomplete metadata %+v", l.File, l)
		}
		if l.Kind == "ok" && len(l.Expect) > 0 {
			t.Errorf("%s: a success log expects %v", l.File, l.Expect)
		}
		for _, id := range l.Expect {
			if !ids[id] {
				t.Errorf("%s expects unknown ID %s", l.File, id)
			}
		}
	}
	for split, n := range m.Counts {
		if counts[split] != n {
			t.Errorf("manifest says %d %s logs, lists %d", n, split, counts[split])
		}
	}
	for _, split := range splits {
		files, _ := filepath.Glob(filepath.Join(publicCorpusDir, split, "*.log"))
		for _, f := range files {
			if !seen[split+"/"+filepath.Base(f)] {
				t.Errorf("%s is not in the manifest", f)
			}
		}
	}
	held := 0
	for _, s := range m.heldOutSplits() {
		held += counts[s]
	}
	if len(m.Logs) < 250 || held*4 < len(m.Logs) {
		t.Errorf("corpus has %d logs, %d held out: expected >= 250 with about a third held out", len(m.Logs), held)
	}
}

// acceptedDevMisses are dev logs where saying nothing is the right answer for
// llamactl although the thread knows the cause: the excerpt holds no
// evidence of it.
var acceptedDevMisses = map[string]string{
	// relabelled in turn 6 by its cause text (h-labels)
	"dev/llamacpp-11819-server-silent-exit-hidden-load-error.log": "llama-server exits without a word after the model's tensor list; the unsupported pre-tokenizer shows only with -v, which the excerpt does not have",
	"dev/easyinstruct-6-no-c-compiler-pip-win.log":                "no C compiler found, but nothing in the excerpt says Windows (the cause there) rather than Linux",
	"dev/llamacpppython-1009-hipblas-windows-picks-msvc.log":      "the excerpt is an ordinary, error-free MSVC configure (Visual Studio generator, cl.exe identified); nothing in it says HIP was requested (the CMAKE_ARGS are only in the thread's prose), so naming hip-compiler-not-clang would be a guess any MSVC log would trigger",
	"dev/koboldcpp-1555-winerror1114-cuda-no-avx2.log":            "WinError 1114 (a DLL's initialiser failed) on koboldcpp_cublas.dll; the CPU lacking AVX2 is the thread's finding, nothing in the excerpt names an instruction or the CPU, and 1114 has other causes (torch's c10.dll)",
	// batch 5, runtime half
	"dev/koboldcpp-778-msvcp140-codecvt-missing.log":          "'could not find module koboldcpp_cublas.dll (or one of its dependencies)' does not say which dependency; the missing MSVCP140_CODECVT_IDS.dll came from a dependency listing outside the excerpt (CUDA runtime, VC runtime and OpenMP DLLs all fail the same way)",
	"dev/pytorch-scripts-26-dll-load-failed-cuda8-cudnn6.log": "'DLL load failed' importing torch._C names no DLL: the same line shows for a missing OpenMP runtime (dev/anaconda-13513) or VC runtime, so naming CUDA would be a guess",
	"dev/sdcpp-291-vulkan-vae-buffer-oom.log":                 "the log shows one buffer over Vulkan's per-allocation limit, which is not exhausted memory (ggml-org/llama.cpp#12728, #12817: memory was free); nothing shows the 8 GB card was full",
	"dev/textgen-6255-llama-cuda-dll-cuda12-path.log":         "the excerpt stops inside the ctypes traceback before the error text: nothing says which DLL was missing",
	// batch 6 (h-tune6): the excerpt holds the failure's last words, not its cause
	"dev/caffe2-774-cuda8-vs2017-msb6006.log":              "MSBuild's MSB6006 ('cmd.exe' exited with code 1) in a CUDA project's custom build step: nvcc failed, but no nvcc message and no cl.exe version is in the excerpt, and every nvcc error ends so",
	"dev/koboldcpp-2124-acestep-xl-model-too-new.log":      "a ggml shape assert (GGML_ASSERT(ggml_can_repeat(b, a))): nothing names the model's architecture or the program's version, and a bug in a compute graph ends the same way",
	"dev/llamacpppy-971-tail-only-old-cuda-toolkit.log":    "only pip's tail ('CMake build failed', 'Failed building wheel'): no CMake or nvcc line names the toolkit or its version",
	"dev/llamacpppy-pr225-cublas-dll-search-path.log":      "Python cannot load llama.dll 'or one of its dependencies' (Python 3.8's DLL search path): the missing dependency is not named, and the CUDA runtime, the VC++ runtime and OpenMP DLLs all end so",
	"dev/localai-288-sigill-no-avx2-register-dump.log":     "only the register dump of a Go crash (rip, rflags, segment registers): neither the signal (SIGILL) nor the instruction bytes are in the excerpt",
	"dev/pygpt4all-75-dll-init-failed-zh-msvc-runtime.log": "'DLL load failed: DLL initialisation routine failed' (WinError 1114, in Chinese) on an extension module: an old or missing VC++ runtime and a CPU lacking AVX2 both end so (see koboldcpp-1555), nothing in the excerpt tells which",
	// batch 7 (h-tune7): a DLL or platform failure that names neither the missing file nor the API
	"dev/ai-toolkit-133-fbgemm-libomp140.log":           "the excerpt is cut inside torch's 'Error loading ...fbgemm.dll' before the WinError code and 'or one of its dependencies': a missing libomp140 (126), a paging file too small (1455) and a failed initialiser (1114) all start this way",
	"dev/dlib-2039-py38-dll-search-curand.log":          "'DLL load failed while importing dlib: The specified module could not be found' names no DLL: the CUDA runtime, cuDNN, the VC++ runtime or OpenMP missing all end so (see pytorch-scripts-26)",
	"dev/jan-3947-engine-dll-cuda-missing.log":          "'Could not load library engine.dll: The specified module could not be found' names only the engine, not the dependency that was missing (the CUDA runtime in the thread, but the VC++ runtime ends the same way)",
	"dev/llama-cpp-python-208-cuda-dll-search-path.log": "llama.dll 'or one of its dependencies' cannot be loaded (Python 3.8's DLL search path, as llamacpppy-pr225): the missing dependency is not named",
	"dev/openclcapsviewer-7-no-mesa-opencl-icd.log":     "'Could not get platform count!' is the program's own sentence: neither OpenCL, an OpenCL call nor the -1001 status is in the excerpt, so nothing says which API had no platform",
	// batch 8 (h-tune8): an exit status or a program's own guess, not the cause
	"dev/anything-llm-1795-bundled-ollama-cuda-libs-missing.log": "the runner's exit status 0xc0000135 (STATUS_DLL_NOT_FOUND) says a DLL was missing, not which: the VC++ runtime or a ggml library missing ends the same way as the CUDA libraries the thread found",
	"dev/gpt4all-1268-oom-warning-really-no-avx.log":             "GPT4All's crash-recovery warning guesses 'out of memory' after any crash while loading; nothing in the excerpt names AVX, an illegal instruction or the CPU (the thread found a Xeon E5620 without AVX)",
	// issue #15 (h-newid2r): a cause now with an ID whose excerpt shows it only by an absence
	"dev/compute-runtime-477-no-level-zero-packages.log": "sycl-ls lists only the OpenCL CPU and FPGA-emulation platforms and the host device: the missing Level Zero GPU is an absence, and sycl-ls on a machine with no Intel GPU prints the same",
	// batch 10 (h-tune10a, build side): the excerpt holds no line that names the cause
	"dev/flash-attn-389-max-jobs-ram-exhausted.log":     "only a top snapshot with the machine's RAM nearly all used: no compiler process, kill or allocation failure is named, and a model loading or any other program fills memory the same way",
	"dev/mamba-323-causal-conv1d-no-nvcc.log":           "the build script's version check ('only supported on CUDA 11.6 and above ... make sure nvcc has a supported version') is raised for an nvcc older than 11.6 (cuda-toolkit-too-old) as well as for the missing one the thread found; the excerpt shows neither nvcc's version nor its absence",
	"dev/zluda-108-slangtorch-stl1002-cuda-too-old.log": "only '1 error detected in the compilation of ...cu' and ninja's stop: the STL1002 line the maintainer quoted is outside the excerpt, and any nvcc error ends so",
	// batch 10 (h-tune10b), runtime half: the excerpt stops before the cause or shows only its effect
	"dev/gpt4all-2918-bindings-msvcp140-missing.log":      "the excerpt is cut inside ctypes' 'Could not find module' path, before the DLL's name and '(or one of its dependencies)': nothing names msvcp140.dll, and a missing CUDA runtime or OpenMP DLL starts the same way (see textgen-6255)",
	"dev/lmstudio-221-no-runtime-vm-cpu-no-avx2.log":      "LM Studio's 'No LM Runtime found for model format' names no reason: it says the same when no runtime is installed (after the 0.4 upgrade, lmstudio-bug-tracker#1925) or on a second Windows account (#1221); nothing in the excerpt names AVX2 or the CPU (the thread's finding)",
	"dev/ollama-2870-rx6650-container-crash-override.log": "only the register dump of a Go crash (rax ... gs): neither the signal, the GPU's gfx target nor a rocBLAS/Tensile line is in the excerpt (see localai-288)",
	"dev/ollama-9686-vmware-nat-forward-holds-11434.log":  "only the client's side: a connection to 11434 reset by the remote host, which a crashing server, a proxy or a security product ends the same way; no bind error shows that another process holds the port",
	"dev/ollama-9842-offline-install-no-runners.log":      "ollama's debug line 'compatible gpu libraries' compatible=[] alone: it prints the same empty list on a machine with no GPU (a CPU has no GPU library to match, llm/server.go), and nothing in the excerpt shows an NVIDIA GPU was detected",
	// batch 12 (h-tune12): the excerpt does not say which platform or GPU
	"dev/cpp-ethereum-229-vs2013-no-v120-toolset.log":       "CMake's 'No CMAKE_C_COMPILER could be found' with both compiler identifications unknown, and nothing else: the Visual Studio 2013 generator is only in the manifest's tool field, and these lines are a missing gcc on Linux (cxx-compiler-missing) or missing Visual Studio C++ tools on Windows (msvc-env-missing, vs-generator-not-found) only with a path or generator in sight, of which the excerpt has none (see easyinstruct-6)",
	"dev/rocm-arch-901-rx560-rocminfo-out-of-resources.log": "rocminfo's HSA_STATUS_ERROR_OUT_OF_RESOURCES with only 'ROCk module is loaded': the GPU (an RX 560, gfx803, not supported by ROCm 5.x) is named nowhere, and a user outside the render group or a container without /dev/kfd ends the same way (rocm-no-device's combination asks for /dev/kfd or the render group in sight; the HSA message itself names thread limits too)",
	// batches 11 and 13 (h-tune1113): a DLL that is not named, a file that is not named, a warning that also shows when its advice is wrong
	"dev/onnxruntime-genai-pr97-py38-dll-search-path.log":    "'DLL load failed while importing onnxruntime_genai: The specified module could not be found' names no DLL: the missing cudart64_12.dll is in the PR's prose only, and a missing VC++ runtime, cuDNN or onnxruntime.dll ends the same way (see dlib-2039)",
	"dev/pytorch-39980-win126-vcredist-missing.log":          "torch's __init__ failing in ctypes.CDLL with '[WinError 126] The specified module could not be found' names neither the DLL it was loading nor the dependency that was missing: the VC++ runtime (the thread's finding), an OpenMP runtime or a CUDA library missing all end so (see pytorch-scripts-26, anaconda-13513)",
	"dev/pytorch3d-1592-cuda-home-conda-prefix.log":          "only '[WinError 2] The system cannot find the file specified' and pip's tail: the file that was not found (nvcc under CUDA_HOME, per the thread) is not named, and any missing compiler or tool a setup.py spawns ends the same way",
	"dev/ramalama-2860-nvidia-container-toolkit-missing.log": "ramalama's 'Device all does not have a CDI configuration' and its nvidia-ctk advice: the same lines show with the toolkit installed and a CDI spec present when ramalama's own CDI loader finds no device (dev/ramalama-1844, whose maintainer calls the advice bogus), so naming docker-gpu-runtime-missing would be a mistake there",
	// batch 14 (turn 8, the lead)
	"dev/ollama-3446-distro-package-no-rocm-runner.log":  "ollama lists only CPU runners and detects no GPU library; nothing in the excerpt says a GPU was there to use (the batch-6 rule names it when a CUDA or ROCm GPU is reported)",
	"dev/pinmame-138-cmake-3.18-no-vs2022-generator.log": "the bare 'Could not create named generator Visual Studio 17 2022' is also what a Linux CMake says (recorded, invariants_newid2b_test.go): without CMake's generator list it does not tell an old CMake",
	// batch 15 (turn 9, the lead)
	"dev/ollama-2408-jetson-jp5-cuda12-cublas-failed.log": "only CUBLAS_STATUS_EXECUTION_FAILED in ggml's batched matmul: a kernel failing at run time has many causes, and nothing in the excerpt names the Jetson, its JetPack 5 driver or the CUDA 12 packages the thread found",
	"dev/rocm-1826-clinfo-needs-root-render-group.log":    "clinfo lists nothing as the user and the GPU under sudo: a reader infers a permission on the device nodes, but no line names the render group, /dev/kfd or an error (a rule for an empty listing beside a root one would be this log's own sentence)",
}

// acceptedDevHedged are dev logs where a probable name of another ID is the
// best the excerpt allows: the line is ambiguous between two IDs, explain
// says "probably" for the reading most users have today, and the thread
// established the other. They stay counted as hedged mistakes in the dev
// figure; any other dev mistake fails TestCorpusDev.
var acceptedDevHedged = map[string]string{
	"dev/arrayfire-1535-cuda75-compute60.log": "nvcc's 'Unsupported gpu architecture compute_60' alone: CUDA 13 dropped sm_50 to sm_72 and an nvcc before CUDA 8 does not know sm_60 yet; the excerpt shows no nvcc version, so explain says probably dropped (today's reading); this 2016 thread had CUDA 7.5 (too new)",
}

// pendingBatches are batches collected after this turn's matcher work began:
// nobody tuned on them, so their dev logs are measured (TestEvalPending) but
// not yet asserted, and their misses are not listed. The next round of matcher
// work tunes on their dev logs and removes them from here.
// Batch 7 (collected during batch 5's matcher work, held-out third drawn
// with seed 57504608) left this list when h-tune7 tuned on its dev logs.
// Batch 8 (turn 5, seed 57285599) was pending from its draw (whole batch
// 90.7%/79.6%/2 confident mistakes, commit f309bc4) until h-tune8 took up
// its dev logs.
// Batch 9 (turn 5, seed 25622338) was pending from its draw (whole batch
// 88.1%/80.0%/1 confident mistake) until h-tune9 took up its dev logs.
// Batch 10 (turn 6, seed 14783351) was pending from its draw (whole batch
// 79.3%/58.6%/2 confident and 2 hedged mistakes) until h-tune10a and
// h-tune10b took up its dev logs.
// Batch 12 (turn 7, seed 61254614) was pending from its draw (whole batch
// 74.6%/68.8%/8 confident and 6 hedged) until h-tune12 took up its dev logs.
// Batch 14 (turn 8, seed 95983824) was pending from its draw (whole batch
// 82.8%/65.0%/1 confident) through turn 8's harvest of other wordings, which
// left its figures as they were (82.8%/65.0%/1 after it), until the lead took up
// its dev logs at the end of turn 8.
// Batch 11 (turn 6, seed 33716718) was pending from its draw (whole batch
// 80.5%/60.0%/0 mistakes, never tuned on until turn 8) until h-tune1113
// took up its dev logs.
// Batch 13 (turn 7, seed 15721816) was pending from its draw (whole batch
// 82.8%/61.5%/0 mistakes) until h-tune1113 took up its dev logs.
// Batch 15 (turn 9, seed 70126879) was pending from its draw (whole batch
// 87.9%/75.0%/2 confident mistakes, the same at the session's first commit
// ff6b847 and with the turn's concepts, which were then reverted) until the
// lead took up its dev logs.
var pendingBatches = map[int]string{}

func notPending(batch int) bool { return pendingBatches[batch] == "" }

// TestCorpusDev: every dev log is diagnosed as its thread established.
func TestCorpusDev(t *testing.T) {
	m := readManifest(t)
	batches := map[int]bool{}
	for _, l := range m.Logs {
		batches[l.Batch] = true
	}
	for b := 1; b <= len(batches); b++ {
		if !notPending(b) {
			continue
		}
		fig, _ := evaluate(t, Default(), []string{"dev"}, func(x int) bool { return x == b }, false)
		t.Logf("dev batch %d: %s", b, fig)
	}
	fig, bad := evaluate(t, Default(), []string{"dev"}, notPending, true)
	t.Logf("[figures] explain dev: %s", fig)

	hedged := 0
	for _, b := range bad {
		file, _, _ := strings.Cut(b, ":")
		if _, ok := acceptedDevMisses[file]; ok && strings.HasSuffix(b, "got []") {
			continue
		}
		if _, ok := acceptedDevHedged[file]; ok && acceptedHedgedOnly(t, m, file) {
			hedged++
			continue
		}
		t.Error(b)
	}
	if fig.confidentWrong != 0 || fig.hedgedWrong != hedged {
		t.Errorf("%d confident and %d hedged mistakes on dev (%d hedged accepted)", fig.confidentWrong, fig.hedgedWrong, hedged)
	}
}

// acceptedHedgedOnly reports whether the dev log's only mistake is one
// probable name (see acceptedDevHedged).
func acceptedHedgedOnly(t *testing.T, m corpusManifest, file string) bool {
	for _, l := range m.Logs {
		if l.File != file {
			continue
		}
		b, err := os.ReadFile(filepath.Join(publicCorpusDir, l.File))
		if err != nil {
			t.Fatal(err)
		}
		v := judgeLog(Default(), string(b), l.Expect)
		return len(v.confidentWrong) == 0 && len(v.hedgedWrong) == 1
	}
	return false
}

// TestEvalPending prints the figures of each pending batch: its dev logs and
// the whole batch (dev and held out together), which no matcher was tuned on.
// Aggregates only; per-log detail is never printed for them.
func TestEvalPending(t *testing.T) {
	if len(pendingBatches) == 0 {
		// not a skip: CI runs every test; there is just nothing blind to print
		t.Log("[figures] no batch is pending: every batch's dev part has been tuned on (TestCorpusDev asserts them)")
		return
	}
	m := readManifest(t)
	for b, why := range pendingBatches {
		held := ""
		for _, x := range m.Batches {
			if x.Batch == b {
				held = x.HeldOut
			}
		}
		if held == "" {
			t.Fatalf("pending batch %d is not in the manifest", b)
		}
		only := func(x int) bool { return x == b }
		dev, _ := evaluate(t, Default(), []string{"dev"}, only, false)
		all, _ := evaluate(t, Default(), []string{"dev", held}, only, false)
		if dev.logs == 0 || all.logs <= dev.logs {
			t.Errorf("pending batch %d: %d dev logs of %d", b, dev.logs, all.logs)
		}
		t.Logf("[figures] explain pending batch %d dev (not tuned on): %s", b, dev)
		t.Logf("[figures] explain pending batch %d whole (not tuned on): %s (%s)", b, all, why)
	}
}

// Floors of the held-out splits, set to the figures measured (see
// docs/support.md, "Public corpus and held-out splits"). test (batch 1) is
// contaminated: its misses were read and written down; test2, test3 and test4 were
// drawn before their batch's matcher work and never looked at log by log.
// confident is the most confident mistakes allowed.
var heldOutFloors = map[string]struct {
	correct, recall float64
	confident       int
}{
	// test: one log of this split got a probable cpu-instruction-unsupported
	// against its thread's cause (90.4%) while a bare "exit code 132" counted
	// as evidence; that signal was dropped (a program may return 132 itself)
	// The concepts layer (turn 6) named one more: 94.2%/93.0%/0.
	"test": {0.94, 0.93, 0},
	// test2: 63.6%/60.7%/2 before the batch-2 matcher work; 0 confident mistakes since batch 5's build half;
	// 87.9%/86.2%/0 with the concepts layer (turn 6)
	"test2": {0.87, 0.86, 0},
	"test3": {0.81, 0.83, 2}, // 62.5%/58.3%/2 before the batch-3 matcher work
	"test4": {0.90, 0.94, 1}, // 90.5%/94.4%/1 before the batch-4 matcher work (unchanged by it)
	// test5: 69.6%/31.6%/1 before the batch-5 matcher work (43.5% recall
	// with the label corrections); 71.7%/43.5%/0 after its runtime half;
	// 73.9%/47.8%/0 with the batch-6 dev work; 78.3%/56.5%/0 with its build half;
	// 80.4%/60.9%/0 after batch 8's dev work with the signature packs merged
	// The concepts layer (turn 6) added two hedged mistakes and one right name: 78.3%/60.9%/0.
	"test5": {0.78, 0.60, 0},
	// test6: 71.4%/47.1%/1 when drawn, 52.6% recall with the label
	// corrections; the batch-6 dev work (h-tune6: batch 6's dev logs 77.9%
	// -> 91.2% correct, 1 -> 0 confident mistakes) moved no test6 log; the
	// llama.cpp message catalog moved one (74.3%/57.9%/1)
	// The turn-6 label audit (h-labels, from the cause texts only) gave one
	// test6 log an ID explain does not name: 71.4%/55.0%/1.
	// The concepts layer (turn 6): 74.3%/60.0%/1.
	"test6": {0.74, 0.60, 1},
	// test7: 76.2%/63.6%/1 when drawn (batch 7 is pending too); 81.0%/72.7%/1
	// with the batch-6 dev work (nobody tuned on batch 7)
	// The turn-6 label audit added an ID one test7 log's cause names and explain
	// named as certain (its one confident mistake) and emptied another's: 90.5%/81.8%/0.
	"test7": {0.90, 0.81, 0},
	// test8: 90.7%/80.0%/1 when drawn (turn 5; batch 8 pending: its whole
	// batch 90.7%/79.6%/2 before anyone tuned on any part of it); unchanged
	// by batch 8's dev work (h-tune8)
	// The CUDA pack (written from NVIDIA's, PyTorch's and TensorFlow's
	// documentation, never from a log) made two test8 logs wrong when it
	// joined (86.0%/80.0%/3): a blind result, reported as measured. Pack
	// signatures then became probable until a development log confirms them
	// (TestPackCertainConfirmed): 86.0%/80.0%/1.
	// h-newid2r's label corrections (two test8 logs relabelled by their
	// cause text to rocm-no-device and model-file-not-found, one found):
	// 83.7%/76.5%/1 (a relabel can only make a figure harder).
	// The turn-6 label audit: a WSL1 log labelled [] given cuda-no-device, as its
	// dev twin wsl-3847 (a GPU that is not passed through): 86.0%/77.8%/1.
	// The concepts layer (turn 6): one more named, one more hedged mistake: 86.0%/83.3%/1.
	// The second label audit (h-labels2) gave two test8 logs cuda-no-device (a
	// WSL2 guest without GPU access, a machine without an NVIDIA GPU), like the
	// WSL1 pair: one was explain's hedged name, one is missed: 86.0%/80.0%/1.
	// Turn 8's harvest of other wordings (merged whatever it showed, as decided
	// before measuring): one more named, two more hedged mistakes: 83.7%/85.0%/1
	// (a harvester saw one test8 thread's excerpt in a search result).
	"test8": {0.83, 0.85, 1},
	// test9: 90.0%/90.0%/1 when drawn (turn 5, with the GPU, build and Windows
	// packs; batch 9 stays pending: whole batch 88.1%/79.3%/1 when drawn);
	// unchanged by batch 9's dev work (h-tune9)
	// The turn-6 label audit gave one test9 log the ID explain named as certain
	// (its one confident mistake): 95.0%/90.9%/0. The turn-8 label audit (the
	// readers' doubts, decided from the thread) gave a log without an ID the
	// cause its thread established, which explain does not name: 90.0%/83.3%/0.
	"test9": {0.90, 0.83, 0},
	// test10: 88.9%/86.7%/1 (and 2 hedged) when drawn (turn 6, after batch
	// 9's dev work; batch 10 pending: whole batch 79.3%/58.6%/2 and 2 hedged)
	// The concepts layer (turn 6) added a hedged mistake: 86.7%/86.7%/1.
	"test10": {0.86, 0.86, 1},
	// test11: 85.7%/60.0%/0 when drawn (turn 6, while batch 10's dev logs were
	// being tuned on in other branches; batch 11 pending: whole batch 78.0%/57.1%/0)
	"test11": {0.85, 0.60, 0},
	// test12: 76.3%/59.1%/2 (and 1 hedged) when drawn (turn 7, after the
	// concepts red team; batch 12 whole when drawn: 74.6%/68.8%/8 and 6 hedged)
	// The third label audit (h-labels3, cause texts only; 3 of 8 proposals
	// clear and applied, 1 held out) made a confident name right: 78.9%/63.6%/1.
	// The turn-9 uniform label audit (all held-out records, labelled blind
	// from their cause texts, disagreements adjudicated) added the ID one
	// test12 log's cause names, which explain named as certain: 81.6%/68.2%/0.
	"test12": {0.81, 0.68, 0},
	// test13: 90.0%/66.7%/0 when drawn (end of turn 7, on the turn's final
	// matchers; batch 13 pending: whole batch 82.8%/61.5%/0)
	"test13": {0.90, 0.66, 0},
	// test14: 75.9%/53.3%/0 when drawn (turn 8, after batches 11 and 13's dev
	// work, before the harvest; batch 14 pending: whole batch 82.8%/65.0%/1)
	// The turn-9 uniform label audit gave a test14 log without an ID the one
	// its cause names, which explain does not name: 72.4%/50.0%/0.
	"test14": {0.72, 0.50, 0},
	// test15: 91.7%/77.8%/0 when drawn (turn 9; batch 15 pending: whole
	// batch 87.9%/75.0%/2)
	"test15": {0.91, 0.77, 0},
	// all: the sum of the splits' confident-mistake limits (0+0+2+1+0+1+0+1+0+1+0+0+0+0+0);
	// the pool changes when a batch joins it, so its floors are re-measured
	// then: 87.7%/87.1%/4 over 122 logs before test5, 82.7%/78.3%/5 over 168
	// with it, 80.8%/74.5%/6 over 203 with test6, 80.4%/74.8%/7 over 224 with
	// test7 (after the relabels of the new IDs), 80.8%/74.8%/6 over 224 after
	// batch 5's runtime half, 81.7%/76.1%/6 with the batch-6 dev work,
	// 83.0%/78.1%/5 with the catalog and batch 5's build half; 84.3%/78.2%/6
	// over 267 with test8 (when drawn); 84.6%/78.8%/6 with the GPU, build and
	// Windows packs, the same with batch 8's dev work added; 85.0%/79.4%/7
	// over 287 with test9 (when drawn); 84.3%/79.4%/9 with the CUDA pack,
	// 84.3%/79.4%/7 once pack signatures were probable until a development
	// log confirms them; 84.0%/79.1%/7 with h-newid2r's relabels (three held
	// out logs now expect a new ID), the same with batch 9's dev work;
	// 84.6%/79.7%/8 over 332 with test10 (when drawn); 85.2%/79.9%/6 with the
	// turn-6 label audit (11 labels corrected from the cause texts, 5 held out);
	// 85.5%/80.0%/6 with its twelfth, the WSL1 log in test8; 85.5%/79.5%/6 over
	// 346 with test11 (when drawn), the same after batch 10's dev work;
	// 86.4%/82.4%/6 (and 7 hedged) with the concepts layer; 86.4%/82.1%/6
	// (and 6 hedged) with the second label audit; 86.7%/82.1%/6 (and 4 hedged)
	// with the concepts red team (turn 7); 85.7%/79.9%/8 (and 5 hedged) over
	// 384 with test12 (when drawn), the same after batch 12's dev work;
	// 85.9%/80.3%/7 (and 5 hedged) with the third label audit; 86.0%/80.2%/7
	// (and 5 hedged) over 394 with test13 (when drawn); the same after the
	// turn-8 label audit and batches 11 and 13's dev work; 85.3%/78.5%/7 (and 5
	// hedged) over 423 with test14 (when drawn); 85.3%/79.4%/7 (and 7 hedged)
	// with turn 8's harvest of other wordings; 85.1%/79.1%/6 (and 7 hedged)
	// with the turn-9 uniform label audit (3 of 423 labels changed);
	// 85.5%/79.1%/6 (and 7 hedged) over 447 with test15 (when drawn).
	"all": {0.85, 0.79, 6},
}

// TestEvalHeldout measures each held-out split and all of them together:
// go test ./failures -run Eval -v
func TestEvalHeldout(t *testing.T) {
	detail := os.Getenv("LLAMACTL_EVAL_DETAIL") == "1"
	m := readManifest(t)
	splits := m.heldOutSplits()
	for _, split := range append(splits, "all") {
		which := []string{split}
		if split == "all" {
			which = splits
		}
		fig, bad := evaluate(t, Default(), which, nil, detail)
		t.Logf("[figures] explain held-out %s: %s", split, fig)
		for _, b := range bad {
			t.Log(b)
		}
		if split == "all" {
			if seen := seenByHarvest(t, m); len(seen) > 0 {
				unseen, _ := evaluateLogs(t, Default(), which, func(l corpusLog) bool { return !seen[l.Slug] }, false)
				t.Logf("[figures] explain held-out all without the %d logs whose threads turn 8's harvesters met: %s", fig.logs-unseen.logs, unseen)
			}
		}
		floor, ok := heldOutFloors[split]
		if !ok {
			t.Errorf("no floor for held-out split %s", split)
			continue
		}
		if fig.confidentWrong > floor.confident {
			t.Errorf("%s: %d confident mistakes on the held-out split (at most %d)", split, fig.confidentWrong, floor.confident)
		}
		if float64(fig.correct) < floor.correct*float64(fig.logs) {
			t.Errorf("%s: correct %d/%d is under the floor %.2f", split, fig.correct, fig.logs, floor.correct)
		}
		if float64(fig.hits) < floor.recall*float64(fig.withCause) {
			t.Errorf("%s: recall %d/%d is under the floor %.2f", split, fig.hits, fig.withCause, floor.recall)
		}
	}
}

// seenByHarvest lists the held-out logs whose threads turn 8's harvesters met
// in search results (seen-by-harvest.txt; '#' starts a comment); each must be
// a log of the manifest.
func seenByHarvest(t *testing.T, m corpusManifest) map[string]bool {
	b, err := os.ReadFile(filepath.Join(publicCorpusDir, "seen-by-harvest.txt"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, l := range m.Logs {
		known[l.Slug] = true
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			if !known[l] {
				t.Errorf("seen-by-harvest.txt: %s is not in the manifest", l)
			}
			seen[l] = true
		}
	}
	return seen
}
