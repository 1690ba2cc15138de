package buildcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/paths"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/internal/textenc"
	runengine "github.com/llamactl/llamactl/runner/engine"
)

const plans = "../../testdata/build/plans"

func newOpts(t *testing.T, env map[string]string, runner proc.Runner) (*Options, *strings.Builder, *strings.Builder) {
	t.Helper()
	if env == nil {
		env = map[string]string{}
	}
	f, out, errOut := cmdutil.NewTest(env, runner)
	return &Options{F: f, Backend: "auto", CacheDir: t.TempDir()}, out, errOut
}

func TestDryRunRecordedWindowsSnapshot(t *testing.T) {
	o, out, _ := newOpts(t, nil, nil)
	o.DryRun = true
	o.SnapshotPath = filepath.Join(plans, "win-vs2022-17.10-cuda12.3-older-toolset.json")
	o.Backend = "cuda"
	o.F.IO.JSON = true
	if err := execute(context.Background(), o); err != nil {
		t.Fatalf("dry run: %v", err)
	}
	var doc Doc
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != 1 || !doc.DryRun || doc.Plan == nil || doc.Plan.Backend != "cuda" {
		t.Fatalf("doc = %+v", doc)
	}
	// doctor's selection drives the plan: its toolkit's nvcc is pinned.
	if !strings.Contains(strings.Join(doc.Plan.Configure.Args, " "), `-DCMAKE_CUDA_COMPILER=D:\NVIDIA GPU Computing Toolkit\CUDA\v12.3\bin\nvcc.exe`) {
		t.Errorf("configure args: %v", doc.Plan.Configure.Args)
	}
	for _, sh := range []string{"bash", "powershell", "cmd"} {
		if doc.Scripts[sh] == "" {
			t.Errorf("no %s script", sh)
		}
	}
}

// A relative --build-dir on this machine becomes absolute, so the paths a
// build reports (log, bin_dir, manifest, last-build.json) hold anywhere.
func TestRelativeBuildDirIsAbsolute(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the recorded snapshot is a Linux machine's")
	}
	o, out, _ := newOpts(t, nil, nil)
	o.DryRun, o.BuildDir, o.Backend, o.F.IO.JSON = true, "rel-build", "cpu", true
	o.SnapshotPath = filepath.Join(plans, "linux-debian-cpu-local.json")
	if err := execute(context.Background(), o); err != nil {
		t.Fatalf("dry run: %v", err)
	}
	var doc Doc
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil || doc.Plan == nil {
		t.Fatalf("doc: %v\n%s", err, out)
	}
	if wd, _ := os.Getwd(); doc.Plan.BuildDir != filepath.Join(wd, "rel-build") {
		t.Errorf("build dir %q, want it absolute", doc.Plan.BuildDir)
	}
}

func TestDryRunTextShowsCommands(t *testing.T) {
	o, out, _ := newOpts(t, nil, nil)
	o.DryRun = true
	o.SnapshotPath = filepath.Join(plans, "win-amd-rx7900xtx-vulkan.json")
	if err := execute(context.Background(), o); err != nil {
		t.Fatalf("dry run: %v", err)
	}
	for _, want := range []string{"backend vulkan", "-DGGML_VULKAN=ON", "cmd:", "call \"C:\\Program Files\\Microsoft Visual Studio\\2022\\Professional\\VC\\Auxiliary\\Build\\vcvarsall.bat\" x64", "downloaded on the first real build"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestUsageErrors(t *testing.T) {
	cases := map[string]func(*Options){
		"check without lock": func(o *Options) { o.Check = true },
		"bad backend":        func(o *Options) { o.Backend = "metal" },
		"missing source":     func(o *Options) { o.Source = "/nonexistent/llama.cpp" },
		"source and ref":     func(o *Options) { o.Source = "."; o.Ref = "b1" },
		"bad ref": func(o *Options) {
			o.Ref = "master"
			o.DryRun = true
			o.SnapshotPath = filepath.Join(plans, "win-amd-rx7900xtx-vulkan.json")
		},
		"bad compiler": func(o *Options) { o.Compiler = "gcc" },
		"removed option": func(o *Options) {
			o.DryRun = true
			o.SnapshotPath = filepath.Join(plans, "win-amd-rx7900xtx-vulkan.json")
			o.CMakeArgs = []string{"-DLLAMA_CLBLAST=ON"}
		},
	}
	for name, mut := range cases {
		o, _, _ := newOpts(t, nil, nil)
		mut(o)
		if code := cmdutil.ExitCode(execute(context.Background(), o)); code != cmdutil.ExitUsage {
			t.Errorf("%s: exit %d, want %d", name, code, cmdutil.ExitUsage)
		}
	}
}

// doubledStop is ".." that is not an ellipsis: an OS error text that ends in
// a full stop (Windows: "Invalid function.") put before our own.
var doubledStop = regexp.MustCompile(`[^.]\.\.([^.]|$)`)

// A usage error says what is wrong and the command to run next, not a raw
// Go error.
func TestUsageErrorsNameTheNextStep(t *testing.T) {
	linux := filepath.Join(plans, "linux-debian-cpu-local.json")
	cases := []struct {
		name string
		mut  func(*Options)
		want []string
	}{
		{"missing lock", func(o *Options) { o.LockPath = "missing.toml" },
			[]string{"--lock missing.toml: no such file", "docs/ci.md", "llamactl build --lock missing.toml --check"}},
		{"lock is a folder", func(o *Options) { o.LockPath = t.TempDir() },
			[]string{"is a folder", "llamactl build --lock"}},
		{"null snapshot", func(o *Options) { o.SnapshotPath = writeTemp(t, "null"); o.DryRun = true },
			[]string{"not a llamactl snapshot", "llamactl doctor --snapshot"}},
		{"empty object snapshot", func(o *Options) { o.SnapshotPath = writeTemp(t, "{}"); o.DryRun = true },
			[]string{"not a llamactl snapshot", "llamactl doctor --snapshot"}},
		{"snapshot is an empty folder", func(o *Options) { o.SnapshotPath = t.TempDir(); o.DryRun = true },
			[]string{"llamactl doctor --snapshot"}},
		{"missing snapshot", func(o *Options) { o.SnapshotPath = "missing.json"; o.DryRun = true },
			[]string{"--snapshot: cannot read missing.json: no such file", "llamactl doctor --snapshot"}},
		{"msvc toolset on linux", func(o *Options) { o.SnapshotPath = linux; o.DryRun = true; o.MSVCToolset = "14.39" },
			[]string{"--msvc-toolset 14.39 applies to Windows builds only", "this machine is linux", "drop the flag"}},
		{"missing source", func(o *Options) { o.Source = "/nonexistent/llama.cpp" },
			[]string{"--source /nonexistent/llama.cpp is not a folder", "git clone", "drop --source"}},
		{"clang-cl on linux", func(o *Options) { o.SnapshotPath = linux; o.DryRun = true; o.Compiler = "clang-cl" },
			[]string{"--compiler clang-cl applies to Windows builds only"}},
	}
	for _, c := range cases {
		o, out, _ := newOpts(t, nil, nil)
		c.mut(o)
		err := execute(context.Background(), o)
		if code := cmdutil.ExitCode(err); code != cmdutil.ExitUsage {
			t.Errorf("%s: exit %d (%v), want %d", c.name, code, err, cmdutil.ExitUsage)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
		if strings.Contains(err.Error(), "open ") || doubledStop.MatchString(err.Error()) {
			t.Errorf("%s: raw Go error: %v", c.name, err)
		}
		if out.Len() != 0 {
			t.Errorf("%s: wrote to stdout: %s", c.name, out)
		}
	}
	// On a recorded Windows machine the toolset is a real choice.
	o, _, _ := newOpts(t, nil, nil)
	o.SnapshotPath, o.DryRun, o.MSVCToolset = filepath.Join(plans, "win-vs2022-17.10-cuda12.3-older-toolset.json"), true, "14.39"
	if err := execute(context.Background(), o); err != nil {
		t.Errorf("--msvc-toolset on a Windows snapshot: %v", err)
	}
}

func writeLock(t *testing.T, body string) string {
	p := filepath.Join(t.TempDir(), "llamactl.lock.toml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Windows PowerShell 5.1's ">" writes UTF-16LE with a byte-order mark
// ("llamactl doctor --json > snap.json"); Notepad saves UTF-8 with one.
func TestPowerShellEncodedInputs(t *testing.T) {
	snapJSON, err := os.ReadFile(filepath.Join(plans, "linux-debian-nvcc11.8-gcc12-nogpu.json"))
	if err != nil {
		t.Fatal(err)
	}
	lock := "[engine]\r\nref = \"b9591\"\r\n[build]\r\nbackend = \"cuda\"\r\ncuda = \">=11.8, <12\"\r\n"
	encodings := map[string]func(string) []byte{
		"utf-16le":  func(s string) []byte { return textenc.EncodeUTF16(s, true, true) },
		"utf-16be":  func(s string) []byte { return textenc.EncodeUTF16(s, false, true) },
		"utf-8 bom": func(s string) []byte { return append([]byte("\xEF\xBB\xBF"), s...) },
	}
	for name, enc := range encodings {
		dir := t.TempDir()
		snap, lockPath := filepath.Join(dir, "snap.json"), filepath.Join(dir, "llamactl.lock.toml")
		if err := os.WriteFile(snap, enc(string(snapJSON)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(lockPath, enc(lock), 0o644); err != nil {
			t.Fatal(err)
		}
		o, out, _ := newOpts(t, nil, nil)
		o.LockPath, o.Check, o.SnapshotPath = lockPath, true, snap
		if err := execute(context.Background(), o); err != nil || !strings.Contains(out.String(), "satisfies") {
			t.Errorf("%s: build --lock --check --snapshot: %v\n%s", name, err, out)
		}
	}
}

func TestCheckLock(t *testing.T) {
	snap := filepath.Join(plans, "linux-debian-nvcc11.8-gcc12-nogpu.json")
	ok := writeLock(t, "[engine]\nref = \"b9591\"\n[build]\nbackend = \"cuda\"\ncuda = \">=11.8, <12\"\narchitectures = \"89-real\"\n")
	o, out, _ := newOpts(t, nil, nil)
	o.LockPath, o.Check, o.SnapshotPath = ok, true, snap
	if err := execute(context.Background(), o); err != nil {
		t.Fatalf("satisfied lock: %v\n%s", err, out)
	}
	if !strings.Contains(out.String(), "satisfies") {
		t.Errorf("output: %s", out)
	}

	bad := writeLock(t, "[engine]\nref = \"b9591\"\n[build]\nbackend = \"cuda\"\ncuda = \">=12.4\"\n")
	o, out, _ = newOpts(t, nil, nil)
	o.LockPath, o.Check, o.SnapshotPath = bad, true, snap
	err := execute(context.Background(), o)
	if cmdutil.ExitCode(err) != cmdutil.ExitCheck || strings.Count(out.String(), "11.8.89") != 1 {
		t.Fatalf("unsatisfied lock: exit %d, %v\n%s", cmdutil.ExitCode(err), err, out)
	}
	// The text lists the problem; the error must not print it a second time.
	var ee *cmdutil.ExitError
	if !errors.As(err, &ee) || !ee.Silent {
		t.Errorf("the failure is printed twice: %v", err)
	}
	o, out, _ = newOpts(t, nil, nil)
	o.LockPath, o.Check, o.SnapshotPath, o.F.IO.JSON = bad, true, snap, true
	err = execute(context.Background(), o)
	var doc Doc
	if cmdutil.ExitCode(err) != cmdutil.ExitCheck || json.Unmarshal([]byte(out.String()), &doc) != nil || doc.Error == nil || !strings.Contains(doc.Error.Message, "11.8.89") {
		t.Errorf("--json unsatisfied lock: exit %d, %s", cmdutil.ExitCode(err), out)
	}

	for _, body := range []string{"[engine]\nref = \"master\"\n[build]\nbackend = \"cuda\"\n", "[engine]\nref = \"b1\"\n[build]\nbackend = \"gpu\"\n", "[engine]\nref = \"b1\"\nsha = \"x\"\n[build]\nbackend = \"cpu\"\n", "[engine]\nref = \"b1\"\n[build]\nbackend = \"cuda\"\ncuda = \"~12\"\n"} {
		o, _, _ = newOpts(t, nil, nil)
		o.LockPath, o.Check, o.SnapshotPath = writeLock(t, body), true, snap
		if code := cmdutil.ExitCode(execute(context.Background(), o)); code != cmdutil.ExitUsage {
			t.Errorf("lock %q: exit %d, want 2", body, code)
		}
	}
}

func TestOfflineWithoutCache(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	o, _, _ := newOpts(t, map[string]string{"LLAMACTL_ENGINE_MIRROR": url + "/{ref}.tar.gz"}, &proc.Replay{})
	o.SnapshotPath = filepath.Join(plans, "linux-debian-nvcc11.8-gcc12-nogpu.json")
	o.HTTP = &http.Client{Timeout: 5 * time.Second}
	err := execute(context.Background(), o)
	if cmdutil.ExitCode(err) != cmdutil.ExitFindings || !strings.Contains(err.Error(), url+"/b9591.tar.gz") || !strings.Contains(err.Error(), "--source DIR") {
		t.Fatalf("exit %d: %v", cmdutil.ExitCode(err), err)
	}

	// --json: the failed fetch step and failed_stage, the same error.
	o, out, _ := newOpts(t, map[string]string{"LLAMACTL_ENGINE_MIRROR": url + "/{ref}.tar.gz"}, &proc.Replay{})
	o.SnapshotPath = filepath.Join(plans, "linux-debian-nvcc11.8-gcc12-nogpu.json")
	o.HTTP = &http.Client{Timeout: 5 * time.Second}
	o.F.IO.JSON = true
	if code := cmdutil.ExitCode(execute(context.Background(), o)); code != cmdutil.ExitFindings {
		t.Fatalf("--json exit %d", code)
	}
	var doc Doc
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
		t.Fatal(err)
	}
	if r := doc.Result; r == nil || r.Failed != "fetch" || len(r.Steps) != 1 || r.Steps[0].Status != "failed" || doc.Error == nil || doc.Error.Code != cmdutil.ExitFindings || r.Steps[0].Detail != doc.Error.Message {
		t.Errorf("--json document %s", out)
	}
}

func fixtureTarball(t *testing.T, top string) []byte {
	t.Helper()
	return testutil.EngineTarball(t, top)
}

// TestBuildDownloadedEngineEndToEnd downloads the fixture engine from an
// httptest mirror, builds it for the CPU with the real cmake and ninja, and
// reruns as a no-op.
func TestBuildDownloadedEngineEndToEnd(t *testing.T) {
	for _, tool := range []string{"cmake", "ninja", "c++"} {
		if _, err := exec.LookPath(tool); err != nil {
			testutil.Missing(t, "%s not installed (scripts/deps.sh)", tool)
		}
	}
	body := fixtureTarball(t, "llama.cpp-b9591")
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		http.ServeContent(w, r, "b9591.tar.gz", time.Time{}, bytes.NewReader(body))
	}))
	defer srv.Close()
	env := map[string]string{"LLAMACTL_ENGINE_MIRROR": srv.URL + "/{ref}.tar.gz", "PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME")}
	o, out, _ := newOpts(t, env, proc.Exec{})
	cache := o.CacheDir
	o.Backend = "cpu"
	o.SnapshotPath = filepath.Join(plans, "linux-debian-nvcc11.8-gcc12-nogpu.json")
	o.OutDir = filepath.Join(t.TempDir(), "dist")
	o.HTTP = srv.Client()
	o.F.IO.JSON = true
	if err := execute(context.Background(), o); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	var doc Doc
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
		t.Fatal(err)
	}
	r := doc.Result
	if r == nil || r.Verify == nil || r.Verify.BuildNumber != 9591 || doc.Source.SHA256 == "" || doc.Plan.Engine.SHA256 != doc.Source.SHA256 {
		t.Fatalf("doc = %s", out)
	}
	if len(r.Steps) < 2 || r.Steps[0].Name != "fetch" || r.Steps[0].Status != "ok" || r.Steps[1].Name != "verify-source" || r.Steps[1].Status != "ok" {
		t.Errorf("steps %+v, want fetch and verify-source first, ok", r.Steps)
	}
	var m struct {
		Engine struct {
			SHA256 string `json:"sha256"`
		} `json:"engine"`
	}
	b, _ := os.ReadFile(filepath.Join(o.OutDir, "manifest.json"))
	if json.Unmarshal(b, &m) != nil || m.Engine.SHA256 != doc.Source.SHA256 {
		t.Errorf("manifest engine sha256 %q, source %q", m.Engine.SHA256, doc.Source.SHA256)
	}

	// The build leaves a record for `llamactl run`, and run's engine locator follows it.
	rec, err := os.ReadFile(filepath.Join(cache, paths.LastBuildName))
	if err != nil {
		t.Fatalf("no last-build record: %v", err)
	}
	var lb paths.LastBuild
	if err := json.Unmarshal(rec, &lb); err != nil || !filepath.IsAbs(lb.BinDir) || lb.Manifest == "" {
		t.Fatalf("last-build record %s (%v)", rec, err)
	}
	loc := runengine.Locator{Getenv: func(string) string { return "" }, ReadFile: os.ReadFile, Stat: os.Stat, CacheDir: cache, Runner: &proc.Replay{}}
	if p, src, err := loc.Find(); err != nil || src != "last-build" || filepath.Dir(p) != lb.BinDir {
		t.Errorf("run's locator: %q source %q, err %v", p, src, err)
	}

	o2, out2, _ := newOpts(t, env, proc.Exec{})
	o2.CacheDir, o2.Backend, o2.SnapshotPath, o2.HTTP, o2.OutDir = cache, "cpu", o.SnapshotPath, srv.Client(), o.OutDir
	o2.F.IO.JSON = true
	if err := execute(context.Background(), o2); err != nil {
		t.Fatalf("second build: %v", err)
	}
	var doc2 Doc
	json.Unmarshal([]byte(out2.String()), &doc2)
	if doc2.Result == nil || !doc2.Result.NoOp || !doc2.Source.Cached || requests != 1 {
		t.Errorf("second run: no-op %v, cached %v, %d downloads", doc2.Result != nil && doc2.Result.NoOp, doc2.Source != nil && doc2.Source.Cached, requests)
	}
	if doc2.Result != nil && (len(doc2.Result.Steps) < 2 || doc2.Result.Steps[0].Status != "skipped" || !strings.HasPrefix(doc2.Result.Steps[1].Detail, "cached at ") || !strings.Contains(doc2.Result.Steps[1].Detail, ", sha256 verified on ")) {
		t.Errorf("second run's source steps %+v, want both skipped: cached, verified", doc2.Result.Steps)
	}

	// A relative --out: the summary names it (not the build folder) and
	// last-build.json records both paths absolute.
	snapPath, _ := filepath.Abs(o.SnapshotPath)
	t.Chdir(filepath.Dir(o.OutDir))
	o3, out3, _ := newOpts(t, env, proc.Exec{})
	o3.CacheDir, o3.Backend, o3.SnapshotPath, o3.HTTP, o3.OutDir = cache, "cpu", snapPath, srv.Client(), "dist"
	if err := execute(context.Background(), o3); err != nil {
		t.Fatalf("third build: %v", err)
	}
	if !strings.Contains(out3.String(), "Binaries: "+o.OutDir+"\n") || !strings.Contains(out3.String(), "Manifest: "+filepath.Join(o.OutDir, "manifest.json")) {
		t.Errorf("summary does not name --out:\n%s", out3)
	}
	rec, _ = os.ReadFile(filepath.Join(cache, paths.LastBuildName))
	if err := json.Unmarshal(rec, &lb); err != nil || lb.BinDir != o.OutDir || lb.Manifest != filepath.Join(o.OutDir, "manifest.json") {
		t.Errorf("last-build record after a relative --out: %s (%v)", rec, err)
	}

	// The same build in Chinese: steps, the result and the paths' labels.
	o4, out4, errOut4 := newOpts(t, env, proc.Exec{})
	o4.CacheDir, o4.Backend, o4.SnapshotPath, o4.HTTP, o4.OutDir, o4.Lang = cache, "cpu", snapPath, srv.Client(), "dist", "zh-CN"
	if err := execute(context.Background(), o4); err != nil {
		t.Fatalf("fourth build: %v", err)
	}
	for _, want := range []string{"已是最新：无需重新构建", "已为 cpu 构建 llama.cpp b9591", "程序目录：" + o.OutDir + "\n", "清单文件：", "配置: 自上次配置以来计划未变", "下载: 已缓存于 ", "校验源码: 已缓存于 "} {
		if !strings.Contains(out4.String(), want) {
			t.Errorf("zh-CN build lacks %q:\n%s\n%s", want, out4, errOut4)
		}
	}
}

// TestSourceWithoutGGML: Debian's llama.cpp source package leaves ggml/ out;
// llamactl says so before CMake does, unless an installed ggml is asked for.
func TestSourceWithoutGGML(t *testing.T) {
	src := filepath.Join(t.TempDir(), "llama.cpp-0.7.0+dfsg")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	root := "if (NOT TARGET ggml AND NOT LLAMA_USE_SYSTEM_GGML)\n    add_subdirectory(ggml)\nendif()\n"
	if err := os.WriteFile(filepath.Join(src, "CMakeLists.txt"), []byte(root), 0o644); err != nil {
		t.Fatal(err)
	}
	o, _, _ := newOpts(t, nil, &proc.Replay{})
	o.Source, o.DryRun, o.Backend = src, true, "cpu"
	o.SnapshotPath = filepath.Join(plans, "linux-debian-nvcc11.8-gcc12-nogpu.json")
	err := execute(context.Background(), o)
	if code := cmdutil.ExitCode(err); code != cmdutil.ExitUsage || !strings.Contains(err.Error(), "has no ggml/ directory") ||
		!strings.Contains(err.Error(), "LLAMA_USE_SYSTEM_GGML=ON") {
		t.Fatalf("tree without ggml/: exit %d, %v", code, err)
	}

	o, out, _ := newOpts(t, nil, &proc.Replay{})
	o.Source, o.DryRun, o.Backend = src, true, "cpu"
	o.SnapshotPath = filepath.Join(plans, "linux-debian-nvcc11.8-gcc12-nogpu.json")
	o.CMakeArgs = []string{"-DLLAMA_USE_SYSTEM_GGML=ON"}
	if err := execute(context.Background(), o); err != nil {
		t.Fatalf("with LLAMA_USE_SYSTEM_GGML=ON: %v", err)
	}
	if !strings.Contains(out.String(), "-DLLAMA_USE_SYSTEM_GGML=ON") {
		t.Errorf("dry run does not pass LLAMA_USE_SYSTEM_GGML on:\n%s", out.String())
	}
}

// A CI build from --lock, and --portable, plan GGML_NATIVE=OFF so the
// binaries run on other CPUs; a plain local build keeps llama.cpp's native
// default.
func TestPortableAndLockTurnNativeOff(t *testing.T) {
	snap := filepath.Join(plans, "linux-debian-cpu-local.json")
	lock := writeLock(t, "[engine]\nref = \"b9591\"\n[build]\nbackend = \"cpu\"\n")
	cases := []struct {
		name   string
		mut    func(*Options)
		native bool
		why    string
	}{
		{"local", func(o *Options) {}, true, "--portable for binaries you copy elsewhere"},
		{"portable", func(o *Options) { o.Portable = true }, false, "GGML_NATIVE=OFF because --portable"},
		{"lock", func(o *Options) { o.LockPath = lock }, false, "GGML_NATIVE=OFF because building from the lock file llamactl.lock.toml (CI)"},
	}
	for _, c := range cases {
		o, out, _ := newOpts(t, nil, nil)
		o.DryRun, o.SnapshotPath, o.Backend = true, snap, "cpu"
		o.F.IO.JSON = true
		c.mut(o)
		if err := execute(context.Background(), o); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var doc Doc
		if err := json.Unmarshal([]byte(out.String()), &doc); err != nil || doc.Plan == nil {
			t.Fatalf("%s: %v %s", c.name, err, out)
		}
		args := strings.Join(doc.Plan.Configure.Args, " ")
		if off := strings.Contains(args, "-DGGML_NATIVE=OFF"); off == c.native || strings.Contains(args, "-DGGML_NATIVE=ON") {
			t.Errorf("%s: configure %s", c.name, args)
		}
		if !strings.Contains(strings.Join(doc.Plan.Reasons, "\n"), c.why) {
			t.Errorf("%s: reasons %q lack %q", c.name, doc.Plan.Reasons, c.why)
		}
	}
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "snap.json")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The RPC worker exists only in a build with the RPC backend.
func TestTargetRPCWorkerNeedsRPC(t *testing.T) {
	f, _, _ := cmdutil.NewTest(map[string]string{}, nil)
	err := execute(context.Background(), &Options{F: f, Backend: "cpu", DryRun: true, Targets: []string{"llama-server", "rpc-server"}})
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--rpc") {
		t.Errorf("err = %v", err)
	}
}
