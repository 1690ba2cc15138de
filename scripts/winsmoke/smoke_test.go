//go:build linux

package winsmoke

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/doctor/doctorcmd"
	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/internal/testutil/faketool"
	"github.com/llamactl/llamactl/internal/textenc"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
)

// EnableEnv turns the suite on (scripts/stages/20-windows.sh sets it): it
// needs root, wine (scripts/deps.d/20-wine.sh) and a few minutes.
const EnableEnv = "LLAMACTL_WINE_SMOKE"

// env is the suite's world: the repository, a work folder with the Windows
// programs (llamactl.exe, faketool.exe, winsetup.exe).
var env struct {
	root, work string
	llamactl   string
}

func TestMain(m *testing.M) {
	if os.Getenv(EnableEnv) != "1" {
		os.Exit(m.Run()) // every test skips
	}
	if err := setup(); err != nil {
		fmt.Fprintf(os.Stderr, "winsmoke: %v\n", err)
		os.Exit(1)
	}
	code := m.Run()
	if os.Getenv("LLAMACTL_WINE_SMOKE_KEEP") == "" {
		os.RemoveAll(env.work)
	}
	os.Exit(code)
}

func setup() error {
	root, err := filepath.Abs("../..")
	if err != nil {
		return err
	}
	env.root = root
	if env.work, err = os.MkdirTemp("", "llamactl-winsmoke"); err != nil {
		return err
	}
	build := func(out, pkg string) error {
		cmd := exec.Command("go", "build", "-o", filepath.Join(env.work, out), pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
		return nil
	}
	for out, pkg := range map[string]string{
		"llamactl.exe": "./cmd/llamactl",
		"faketool.exe": "./internal/testutil/faketool/cmd/faketool",
		"winsetup.exe": "./scripts/winsmoke/winsetup",
	} {
		if err := build(out, pkg); err != nil {
			return err
		}
	}
	env.llamactl = filepath.Join(env.work, "llamactl.exe")
	return nil
}

func need(t *testing.T) {
	t.Helper()
	if os.Getenv(EnableEnv) != "1" {
		t.Skipf("the wine smoke suite runs in scripts/stages/20-windows.sh (%s=1, root)", EnableEnv)
	}
}

// winPath is a Linux path as wine's programs see it (Z: is /).
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

type opts struct {
	lang  string   // WINE_SMOKE_LANG (default C.UTF-8)
	env   []string // NAME=value for the program (no spaces in values)
	state string   // WINE_SMOKE_STATE
	pty   bool     // run on a terminal: wine gives the program a console
}

type result struct {
	out, err string
	code     int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s\n--- stderr\n%s", r.code, trim(r.out), trim(r.err))
}

func trim(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "\n[...]"
	}
	return s
}

// wine runs a Windows program (by default llamactl.exe) under scripts/wine-run.
func wine(t *testing.T, o opts, program string, args ...string) result {
	t.Helper()
	if program == "" {
		program = env.llamactl
	}
	e := append(os.Environ(), "WINE_SMOKE_QUIET=1", "WINE_SMOKE_BIND="+env.root, "WINE_SMOKE_TIMEOUT=120")
	if o.lang != "" {
		e = append(e, "WINE_SMOKE_LANG="+o.lang)
	}
	if len(o.env) > 0 {
		e = append(e, "WINE_SMOKE_ENV="+strings.Join(o.env, " "))
	}
	if o.state != "" {
		e = append(e, "WINE_SMOKE_STATE="+o.state)
	}
	wr := filepath.Join(env.root, "scripts", "wine-run")
	var cmd *exec.Cmd
	if o.pty {
		line := shq(wr) + " " + shq(program)
		for _, a := range args {
			line += " " + shq(a)
		}
		cmd = exec.Command("script", "-qec", line, "/dev/null")
	} else {
		cmd = exec.Command(wr, append([]string{program}, args...)...)
	}
	cmd.Dir, cmd.Env = env.work, e
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{out: out.String(), err: errOut.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("wine-run: %v", err)
	}
	if r.code == 124 {
		t.Fatalf("timed out under wine: %s", r)
	}
	return r
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func llamactl(t *testing.T, args ...string) result {
	t.Helper()
	return wine(t, opts{}, "", args...)
}

func wantCode(t *testing.T, r result, codes ...int) {
	t.Helper()
	if !slices.Contains(codes, r.code) {
		t.Fatalf("exit %d, want %v: %s", r.code, codes, r)
	}
}

func wantIn(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q:\n%s", what, sub, trim(s))
		}
	}
}

func wantNotIn(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			t.Errorf("%s has %q:\n%s", what, sub, trim(s))
		}
	}
}

// work writes a file into the work folder (visible to wine) and returns its path.
func work(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(env.work, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func testdata(parts ...string) string {
	return filepath.Join(append([]string{env.root, "testdata"}, parts...)...)
}

func TestVersionAndHelp(t *testing.T) {
	need(t)
	t.Parallel()
	r := llamactl(t, "version")
	wantCode(t, r, 0)
	wantIn(t, "version", r.out, "llamactl")
	r = llamactl(t, "version", "--json")
	wantCode(t, r, 0)
	var v map[string]any
	if err := json.Unmarshal([]byte(r.out), &v); err != nil || v["schema"] != float64(1) {
		t.Errorf("version --json: %v %s", err, r)
	}
	r = llamactl(t, "--help")
	wantCode(t, r, 0)
	wantIn(t, "--help", r.out, "doctor", "build", "run", "explain")
	r = llamactl(t, "no-such-command")
	wantCode(t, r, 2)
	wantIn(t, "unknown command", r.err, "llamactl --help")
}

// decodeDoctor decodes a doctor --json document strictly against its Go
// type (the schema docs/json.md documents): an unknown field fails.
func decodeDoctor(t *testing.T, s string) doctorcmd.Doc {
	t.Helper()
	var d doctorcmd.Doc
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("doctor --json is not its schema: %v\n%s", err, trim(s))
	}
	if d.Schema != 1 || d.Snapshot == nil || len(d.Checks) == 0 {
		t.Fatalf("doctor --json: schema %d, snapshot %v, %d checks", d.Schema, d.Snapshot != nil, len(d.Checks))
	}
	return d
}

func messages(d doctorcmd.Doc) []string {
	var out []string
	for _, c := range d.Checks {
		out = append(out, c.Message)
	}
	return out
}

func check(d doctorcmd.Doc, id string) (msg, summary string) {
	for _, c := range d.Checks {
		if c.ID == id {
			return c.Message, c.Summary
		}
	}
	return "", ""
}

// A bare Windows (wine's prefix: no NVIDIA driver, no CUDA, no Visual
// Studio, no OpenCL driver) is diagnosed without crash and without the
// false findings of issue #10's items 1, 2, 4 and 5.
func TestDoctorOnABareWindows(t *testing.T) {
	need(t)
	t.Parallel()
	r := llamactl(t, "doctor")
	wantCode(t, r, 0, 1)
	wantIn(t, "doctor", r.out, "✓")
	wantNotIn(t, "doctor", r.out+r.err, "Module not found", "not recorded in this snapshot", ": unknown", "panic", "internal:")

	r = llamactl(t, "doctor", "--json")
	wantCode(t, r, 0, 1)
	d := decodeDoctor(t, r.out)
	s := d.Snapshot
	if s.OS.GOOS != "windows" || s.Windows == nil || s.Windows.SystemDir == "" {
		t.Errorf("os %+v windows %+v", s.OS, s.Windows)
	}
	if len(s.OS.CPUFlags) == 0 {
		t.Error("no CPU flags on Windows (item 1)")
	}
	if s.NVIDIA.NVMLStatus != "ERROR_LIBRARY_NOT_FOUND" {
		t.Errorf("NVML status %q, want ERROR_LIBRARY_NOT_FOUND (no nvml.dll)", s.NVIDIA.NVMLStatus)
	}
	for _, e := range s.ProbeErrors {
		if strings.Contains(e.Error, "NVML") {
			t.Errorf("no nvml.dll reported as a probe error (item 2): %+v", e)
		}
	}
	if m, _ := check(d, "nv.driver-model"); m != "skip/no-nvidia" {
		t.Errorf("nv.driver-model = %q (item 4)", m)
	}
	if m, _ := check(d, "nv.cuda-init"); m != "skip/not-probed" {
		t.Errorf("nv.cuda-init = %q (item 4)", m)
	}
	if m, sum := check(d, "ocl.platforms"); strings.HasSuffix(sum, "unknown") || m == "" {
		t.Errorf("ocl.platforms = %s: %s (item 5)", m, sum)
	}
	if d.Selection.Backend != "cpu" {
		t.Errorf("selection %+v", d.Selection)
	}
	for _, c := range d.Checks {
		if strings.HasPrefix(c.Summary, "internal") || strings.Contains(c.Summary, "crashed") {
			t.Errorf("%s: %s", c.Message, c.Summary)
		}
	}
}

// doctor --snapshot writes the machine; --replay of that file (also as
// PowerShell 5.1 would have saved it: UTF-16LE with a BOM) gives the same
// findings.
func TestSnapshotThenReplay(t *testing.T) {
	need(t)
	t.Parallel()
	snap := filepath.Join(env.work, "machine.json")
	r := llamactl(t, "doctor", "--snapshot", snap, "--json")
	wantCode(t, r, 0, 1)
	liveCode := r.code
	live := decodeDoctor(t, r.out)
	b, err := os.ReadFile(snap)
	if err != nil {
		t.Fatalf("no snapshot written: %v", err)
	}
	ps := work(t, "machine-ps51.json", textenc.EncodeUTF16(strings.ReplaceAll(string(b), "\n", "\r\n"), true, true))
	for _, file := range []string{snap, ps} {
		r = llamactl(t, "doctor", "--replay", file, "--json")
		wantCode(t, r, liveCode)
		replay := decodeDoctor(t, r.out)
		if got, want := messages(replay), messages(live); !slices.Equal(got, want) {
			t.Errorf("%s: replayed findings differ:\n got %v\nwant %v", filepath.Base(file), got, want)
		}
	}
}

func TestMatrix(t *testing.T) {
	need(t)
	t.Parallel()
	r := llamactl(t, "matrix", "gpu", "RTX 4060")
	wantCode(t, r, 0)
	wantIn(t, "matrix gpu", r.out, "8.9", "89-real")
	r = llamactl(t, "matrix", "cuda", "12.8")
	wantCode(t, r, 0)
	wantIn(t, "matrix cuda", r.out, "12.8")
	r = llamactl(t, "matrix", "resolve", "--gpu", "RTX 4090", "--driver", "560.94", "--os", "windows", "--msvc", "19.41", "--json")
	wantCode(t, r, 0, 1)
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil || doc["schema"] != float64(1) {
		t.Errorf("matrix resolve --json: %v %s", err, r)
	}
	wantIn(t, "matrix resolve", r.out, "89-real")
	r = llamactl(t, "matrix", "gpu", "RTX 4060", "--lang", "zh-CN")
	wantCode(t, r, 0)
	wantIn(t, "matrix gpu --lang zh-CN", r.out, "计算能力")
}

// explain reads Windows logs: CRLF line ends, and UTF-16LE with a BOM as
// PowerShell 5.1's ">" writes them.
func TestExplainWindowsLogs(t *testing.T) {
	need(t)
	t.Parallel()
	logPath := testdata("doctor", "recordings", "fixtures", "logs", "nvcc-unsupported-msvc-vs2026-msvc-19.50-cuda-12.8-llamacpp-17547-win.log")
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	crlf := strings.ReplaceAll(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n", "\r\n")
	files := map[string][]byte{
		"build-crlf.log":  []byte(crlf),
		"build-utf16.log": textenc.EncodeUTF16(crlf, true, true),
	}
	var ids []string
	for name, body := range files {
		p := work(t, name, body)
		r := llamactl(t, "explain", p, "--json")
		wantCode(t, r, 1)
		var doc struct {
			Schema   int `json:"schema"`
			Findings []struct {
				ID string `json:"id"`
			} `json:"findings"`
		}
		if err := json.Unmarshal([]byte(r.out), &doc); err != nil || doc.Schema != 1 || len(doc.Findings) == 0 {
			t.Fatalf("%s: %v %s", name, err, r)
		}
		ids = append(ids, doc.Findings[0].ID)
		r = llamactl(t, "explain", p)
		wantCode(t, r, 1)
		wantIn(t, "explain "+name, r.out, doc.Findings[0].ID)
	}
	if ids[0] != ids[1] {
		t.Errorf("CRLF and UTF-16 logs explained differently: %v", ids)
	}
}

func TestBuild(t *testing.T) {
	need(t)
	t.Parallel()
	// This machine (no compiler): a dry run still plans, with CPU.
	r := llamactl(t, "build", "--dry-run", "--json")
	wantCode(t, r, 0, 1)
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil || doc["schema"] != float64(1) || doc["dry_run"] != true {
		t.Fatalf("build --dry-run --json: %v %s", err, r)
	}
	// A recorded Windows machine with Visual Studio and CUDA.
	snap := testdata("build", "plans", "win-vs2022-17.10-cuda12.3-older-toolset.json")
	r = llamactl(t, "build", "--dry-run", "--snapshot", snap, "--backend", "cuda")
	wantCode(t, r, 0)
	wantIn(t, "build --dry-run", r.out, "cmake", "GGML_CUDA=ON", "vcvarsall")

	// --lock: a folder, and a lock saved by PowerShell 5.1 (UTF-16LE).
	r = llamactl(t, "build", "--lock", env.work, "--check")
	wantCode(t, r, 2)
	wantIn(t, "build --lock FOLDER", r.err, "is a folder, not a lock file", "llamactl build --lock")
	wantNotIn(t, "build --lock FOLDER", r.err, "Invalid function", "..  ")
	lock := work(t, "llamactl.lock.toml", textenc.EncodeUTF16("[engine]\r\nref = \"b9591\"\r\n[build]\r\nbackend = \"cuda\"\r\ncuda = \">=12.3, <12.4\"\r\n", true, true))
	r = llamactl(t, "build", "--lock", lock, "--check", "--snapshot", snap)
	wantCode(t, r, 0)
	wantIn(t, "build --lock --check", r.out, "satisfies")

	r = llamactl(t, "patches", "list")
	wantCode(t, r, 0)
	r2 := llamactl(t, "patches", "list", "--json")
	wantCode(t, r2, 0)
	var pl struct {
		Schema  int `json:"schema"`
		Patches []struct {
			ID string `json:"id"`
		} `json:"patches"`
	}
	if err := json.Unmarshal([]byte(r2.out), &pl); err != nil || len(pl.Patches) == 0 {
		t.Fatalf("patches list --json: %v %s", err, r2)
	}
	wantIn(t, "patches list", r.out, pl.Patches[0].ID)
}

// gguf and run --dry-run on a generated model, with an engine (a stand-in
// llama-server.exe) replaying a real llama-server's --version, --help and
// --list-devices.
func TestGGUFAndRunDryRun(t *testing.T) {
	need(t)
	t.Parallel()
	f, err := ggufwrite.Model(ggufwrite.Config{Arch: "llama"})
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(env.work, "models", "tiny-llama.gguf")
	os.MkdirAll(filepath.Dir(model), 0o755)
	if err := f.WriteFile(model); err != nil {
		t.Fatal(err)
	}
	r := llamactl(t, "gguf", model, "--json")
	wantCode(t, r, 0)
	var g map[string]any
	if err := json.Unmarshal([]byte(r.out), &g); err != nil || g["schema"] != float64(1) {
		t.Fatalf("gguf --json: %v %s", err, r)
	}
	r = llamactl(t, "gguf", model)
	wantCode(t, r, 0)
	wantIn(t, "gguf", r.out, "llama")

	engine := filepath.Join(env.work, "engine")
	os.MkdirAll(engine, 0o755)
	fix := func(name string) []byte {
		b, err := os.ReadFile(testdata("runner", name))
		if err != nil {
			t.Fatal(err)
		}
		return []byte(strings.ReplaceAll(bodyOf(string(b)), "\r\n", "\n"))
	}
	spec := faketool.Spec{Exit: 1, Stderr: []byte("error: this stand-in answers --version, --help and --list-devices only\n"),
		Args: map[string]*faketool.Spec{
			"--version":      {Stderr: fix("llama-server-b11669-version.txt")},
			"--help":         {Stdout: fix("llama-server-b11669-help.txt")},
			"--list-devices": {Stdout: fix("llama-server-b11669-list-devices-cpu.txt")},
		}}
	if _, err := faketool.Place(filepath.Join(env.work, "faketool.exe"), engine, "llama-server.exe", spec); err != nil {
		t.Fatal(err)
	}
	r = llamactl(t, "run", model, "--engine", engine, "--dry-run", "--json")
	wantCode(t, r, 0)
	var doc struct {
		Schema int      `json:"schema"`
		Argv   []string `json:"argv"`
		Engine struct {
			Path  string `json:"path"`
			Build int    `json:"build"`
		} `json:"engine"`
	}
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil || doc.Schema != 1 || len(doc.Argv) == 0 {
		t.Fatalf("run --dry-run --json: %v %s", err, r)
	}
	if !strings.HasSuffix(strings.ToLower(doc.Engine.Path), "llama-server.exe") || doc.Engine.Build != 11669 {
		t.Errorf("engine %+v", doc.Engine)
	}
	wantIn(t, "run --dry-run argv", strings.Join(doc.Argv, " "), "-m", "tiny-llama.gguf")
	r = llamactl(t, "run", model, "--engine", engine, "--dry-run")
	wantCode(t, r, 0)
	wantIn(t, "run --dry-run", r.out, "llama-server")
}

// bodyOf drops a recorded fixture's header (# ... up to # ---).
func bodyOf(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if i := strings.Index(s, "\n# ---\n"); strings.HasPrefix(s, "# ") && i >= 0 {
		return s[i+len("\n# ---\n"):]
	}
	return s
}

// probe: no CUDA toolkit and no OpenCL driver are clean findings, not crashes.
func TestProbe(t *testing.T) {
	need(t)
	t.Parallel()
	r := llamactl(t, "probe", "--json")
	wantCode(t, r, 0, 1)
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil || doc["schema"] != float64(1) {
		t.Fatalf("probe --json: %v %s", err, r)
	}
	r = llamactl(t, "probe")
	wantCode(t, r, 0, 1)
	wantIn(t, "probe", r.out, "OpenCL")
	wantNotIn(t, "probe", r.out+r.err, "panic", "crashed", "exception")
}

func TestDoctorReportZip(t *testing.T) {
	need(t)
	t.Parallel()
	// An existing folder with --zip gets llamactl-report-<time>.zip inside.
	dir := filepath.Join(env.work, "reports")
	os.MkdirAll(dir, 0o755)
	r := llamactl(t, "doctor", "--report", dir, "--zip", "--json")
	wantCode(t, r, 0, 1)
	d := decodeDoctor(t, r.out)
	if d.Report == nil || !strings.HasSuffix(d.Report.Path, ".zip") {
		t.Fatalf("report %+v", d.Report)
	}
	zips, _ := filepath.Glob(filepath.Join(dir, "llamactl-report-*.zip"))
	if len(zips) != 1 {
		t.Fatalf("zips in %s: %v (report path %s)", dir, zips, d.Report.Path)
	}
	zr, err := zip.OpenReader(zips[0])
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	for _, want := range []string{"report.json", "report.md"} {
		if !slices.Contains(names, want) {
			t.Errorf("zip holds %v, no %s", names, want)
		}
	}
	// The zip replays.
	r = llamactl(t, "doctor", "--replay", zips[0], "--json")
	wantCode(t, r, 0, 1)
	decodeDoctor(t, r.out)
}

// Chinese: by --lang, and by the Windows display language alone (no LANG in
// the environment, as on Windows: winsetup drops what wine leaks from Linux).
// On a console (wine gives one on a terminal) whose code page is the Chinese
// legacy one (936), llamactl switches it to UTF-8 so ✓ and Chinese show.
func TestChinese(t *testing.T) {
	need(t)
	t.Parallel()
	r := llamactl(t, "doctor", "--lang", "zh-CN")
	wantCode(t, r, 0, 1)
	wantIn(t, "doctor --lang zh-CN", r.out, "✓", "主机")

	plan := work(t, "plan-zh.json", mustJSON(t, map[string]any{
		"unsetenv": []string{"LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE"},
		"run":      []string{winPath(env.llamactl), "matrix", "gpu", "RTX 4060"},
	}))
	r = wine(t, opts{lang: "zh_CN.UTF-8"}, filepath.Join(env.work, "winsetup.exe"), plan)
	wantCode(t, r, 0)
	wantIn(t, "matrix gpu on a Chinese Windows", r.out, "计算能力")

	r = wine(t, opts{lang: "zh_CN.UTF-8", pty: true}, "", "matrix", "gpu", "RTX 4060", "--lang", "zh-CN")
	wantCode(t, r, 0)
	wantIn(t, "matrix gpu on a code page 936 console", r.out, "✓", "计算能力")
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// notMaterialized names the recordings whose machine cannot be built inside
// wine, and why.
func notMaterialized(sc *probe.Scenario) string {
	switch {
	case sc.GOOS != "windows":
		return "not a Windows machine"
	case len(sc.RegErrs) > 0:
		return "registry access errors cannot be made in wine's registry"
	case len(sc.FileErrs) > 0:
		return "file access errors cannot be made in wine's file system"
	case len(sc.Links) > 0:
		return "symbolic links do not work under wine"
	case sc.Self != "":
		return "NVML answers (GPUs from nvml.dll) need a real NVIDIA driver"
	}
	return ""
}

// Every recorded Windows machine of testdata/doctor/recordings, built
// inside wine and diagnosed by the real llamactl.exe: the findings the
// recording expects (recordings-expect.json) must come out of the real
// Windows code paths (registry, vswhere, nvidia-smi, nvcc, PATHEXT search).
func TestRecordedWindowsMachines(t *testing.T) {
	need(t)
	t.Parallel()
	scenarios := testutil.RecordingExpects(t)
	names := make([]string, 0, len(scenarios))
	for name := range scenarios {
		if strings.HasPrefix(name, "win-") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		e := scenarios[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := probe.LoadScenario(testdata("doctor", "recordings", name))
			if err != nil {
				t.Fatal(err)
			}
			if why := notMaterialized(sc); why != "" {
				t.Skip(why)
			}
			args := []string{"doctor", "--json"}
			if e.Backend != "" {
				args = append(args, "--backend", e.Backend)
			}
			plan := materialize(t, sc, args)
			state := t.TempDir()
			addDrives(t, state, plan)
			r := wine(t, opts{state: state}, filepath.Join(env.work, "winsetup.exe"), work(t, "plan-"+name+".json", plan))
			wantCode(t, r, 0, 1)
			d := decodeDoctor(t, r.out)
			e.Check(t, messages(d), d.Selection)
			if t.Failed() {
				t.Logf("stderr: %s", trim(r.err))
			}
		})
	}
}

// materialize turns a recorded Windows machine into a winsetup plan:
// folders and files, a stand-in program for every recorded command's
// program (its recorded answers by argument list), registry values, the
// environment, then llamactl.exe args.
func materialize(t *testing.T, sc *probe.Scenario, args []string) []byte {
	t.Helper()
	p := struct {
		Dirs     []string                 `json:"dirs,omitempty"`
		Files    map[string]string        `json:"files,omitempty"`
		Faketool string                   `json:"faketool"`
		Tools    map[string]faketool.Spec `json:"tools,omitempty"`
		Registry []map[string]string      `json:"registry,omitempty"`
		Env      map[string]string        `json:"env,omitempty"`
		Unsetenv []string                 `json:"unsetenv,omitempty"`
		Run      []string                 `json:"run"`
	}{Files: map[string]string{}, Tools: map[string]faketool.Spec{}, Env: map[string]string{},
		Faketool: winPath(filepath.Join(env.work, "faketool.exe")),
		Unsetenv: []string{"LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE"}}
	p.Run = append([]string{winPath(env.llamactl)}, args...)

	// Commands by program: "C:\...\nvcc.exe --version" -> nvcc.exe, "--version".
	for line, c := range sc.Commands {
		prog, rest := splitProgram(line)
		if prog == "" || c.NotFound {
			continue
		}
		spec, ok := p.Tools[prog]
		if !ok {
			spec = faketool.Spec{Exit: 1, Stderr: []byte("this stand-in answers only the recorded command lines\n"), Args: map[string]*faketool.Spec{}}
		}
		spec.Args[rest] = &faketool.Spec{Stdout: []byte(c.Stdout), Stderr: []byte(c.Stderr), Exit: c.ExitCode, Hang: c.Hang}
		p.Tools[prog] = spec
	}
	for path, content := range sc.Files {
		lower := strings.ToLower(path)
		switch {
		case strings.HasSuffix(path, `\`):
			p.Dirs = append(p.Dirs, path)
		case hasKey(p.Tools, path):
		case strings.HasSuffix(lower, ".dll") && strings.Contains(lower, `\system32\`):
			// Not an empty file: nvml.dll, nvcuda.dll and OpenCL.dll there
			// are loaded, and an empty one is a broken driver, not this machine.
		case strings.HasSuffix(lower, ".exe"):
			// A program with no recorded answer: it exists and fails.
			p.Tools[path] = faketool.Spec{Exit: 1, Stderr: []byte("not recorded\n")}
		default:
			p.Files[path] = content
		}
	}
	for key, vals := range sc.Registry {
		for name, v := range vals {
			p.Registry = append(p.Registry, map[string]string{"key": key, "name": name, "value": v})
		}
	}
	// A machine recorded without TEMP and TMP had none (a developer prompt
	// started from a service): drop wine's.
	if !hasEnv(sc.Env, "TEMP") && !hasEnv(sc.Env, "TMP") {
		p.Unsetenv = append(p.Unsetenv, "TEMP", "TMP")
	}
	for k, v := range sc.Env {
		switch strings.ToUpper(k) {
		case "SYSTEMROOT", "WINDIR", "PROGRAMFILES", "PROGRAMFILES(X86)", "PROGRAMW6432", "USERPROFILE", "TEMP", "TMP", "LOCALAPPDATA", "APPDATA":
			// wine's own (its user folders exist; the recorded user's do not)
		default:
			p.Env[k] = v
		}
	}
	return mustJSON(t, p)
}

var reDrive = regexp.MustCompile(`(?i)(?:^|[^A-Za-z])([a-y]):\\\\`)

// addDrives gives wine the drive letters the machine uses besides C: (a
// toolkit on D:): a folder in the prefix's state and a dosdevices link to it.
func addDrives(t *testing.T, state string, plan []byte) {
	t.Helper()
	seen := map[string]bool{"c": true}
	for _, m := range reDrive.FindAllStringSubmatch(string(plan), -1) {
		d := strings.ToLower(m[1])
		if seen[d] {
			continue
		}
		seen[d] = true
		if err := os.MkdirAll(filepath.Join(state, "u", "drive_"+d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(state, "u", "dosdevices"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../drive_"+d, filepath.Join(state, "u", "dosdevices", d+":")); err != nil {
			t.Fatal(err)
		}
	}
}

func hasEnv(env map[string]string, k string) bool {
	for key := range env {
		if strings.EqualFold(key, k) {
			return true
		}
	}
	return false
}

func hasKey(m map[string]faketool.Spec, k string) bool {
	for key := range m {
		if strings.EqualFold(key, k) {
			return true
		}
	}
	return false
}

// splitProgram splits a recorded command line at its program: an absolute
// Windows path ending in .exe, quoted or not ("" for a bare name found on
// PATH, which the recording does not place).
func splitProgram(line string) (prog, args string) {
	if strings.HasPrefix(line, `"`) {
		if i := strings.Index(line[1:], `"`); i >= 0 {
			prog, args = line[1:1+i], strings.TrimSpace(line[2+i:])
		}
	} else {
		lower := strings.ToLower(line)
		if i := strings.Index(lower, ".exe"); i >= 0 {
			prog, args = line[:i+4], strings.TrimSpace(line[i+4:])
		}
	}
	if len(prog) < 3 || prog[1] != ':' {
		return "", ""
	}
	return prog, args
}
