package report

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/buildinfo"
	"github.com/llamactl/llamactl/machine"
)

const (
	hfToken = "hf_PlantedTokenAbCdEfGhIjKlMnOpQr0123"
	ghToken = "ghp_PlantedGithubTokenABCDEFGHIJKLMNOP"
	awsKey  = "AKIAPLANTEDEXAMPLE12"
)

// windowsSnapshot is shaped like a snapshot of a Windows 11 machine whose
// user is "Jane Doe" on host "JANE-LAPTOP", with secrets planted in the
// environment, in paths and in raw tool output.
func windowsSnapshot() *machine.Snapshot {
	return &machine.Snapshot{
		Schema: 1, TakenAt: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC),
		OS: machine.OSInfo{GOOS: "windows", Arch: "amd64", Name: "Windows 11 Pro", Version: "10.0.22631",
			Hostname: "JANE-LAPTOP", User: "Jane Doe", HomeDir: `C:\Users\Jane Doe`},
		Env: map[string]string{
			"CUDA_PATH":      `C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4`,
			"PATH":           `C:\Users\Jane Doe\AppData\Local\Programs\Python\Python312\Scripts;C:\Users\JANEDO~1\bin`,
			"HF_TOKEN":       hfToken,
			"CMAKE_ARGS":     "-DGGML_CUDA=ON -DHF=" + hfToken,
			"TEMP":           `C:\Users\JANEDO~1\AppData\Local\Temp`,
			"CUDACXX":        `C:\Users\Jane Doe\cuda\bin\nvcc.exe`,
			"FAVORITE_COLOR": "blue-jane-secretish",
		},
		Path: []machine.PathEntry{{Dir: `C:\Users\Jane Doe\OneDrive - Fabrikam Inc\tools`, Exists: true}},
		NVIDIA: machine.NVIDIA{NVMLStatus: "ok", DriverVersion: "560.94", CUDADriverAPI: "12.6", GPUs: []machine.GPU{{
			Index: 0, Name: "NVIDIA GeForce RTX 4070", UUID: "GPU-1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901", Serial: "1652523045678",
			PCIBusID: "00000000:01:00.0", ComputeCapability: "8.9", TotalMiB: 12282}}},
		Toolkits: []machine.CUDAToolkit{{Version: "12.4.131", Root: `C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4`, NVCC: `C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\bin\nvcc.exe`}},
		MSVC:     []machine.MSVCInstall{{DisplayName: "Visual Studio Community 2022", Path: `C:\Program Files\Microsoft Visual Studio\2022\Community`, ClVersion: "19.41.34123", HasVCTools: true}},
		Raw: map[string]string{
			"nvidia-smi -q": "GPU UUID : GPU-1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901\nSerial Number : 1652523045678\n",
			"ipconfig /all": "Host Name . . . : JANE-LAPTOP\nPhysical Address. . : 9C-B6-D0-12-34-56\nIPv4 Address. . : 10.20.30.40(Preferred)\n",
			`where nvcc`:    `C:\Users\Jane Doe\miniconda3\envs\llm\Library\bin\nvcc.exe` + "\n",
		},
	}
}

func windowsEnv() map[string]string {
	return map[string]string{
		"USERNAME": "Jane Doe", "USERPROFILE": `C:\Users\Jane Doe`, "COMPUTERNAME": "JANE-LAPTOP", "USERDOMAIN": "JANE-LAPTOP",
		"HF_TOKEN": hfToken, "GITHUB_TOKEN": ghToken, "AWS_ACCESS_KEY_ID": awsKey, "PATH": `C:\Windows`,
	}
}

func doctorDoc(s *machine.Snapshot) map[string]any {
	return map[string]any{
		"schema": 1,
		"checks": []map[string]any{
			{"id": "cuda-msvc-compat", "status": "error", "summary": `nvcc 12.4 at C:\Users\Jane Doe\miniconda3\envs\llm\Library\bin cannot use MSVC 19.41`,
				"fix": map[string]any{"text": "Put the real toolkit first.", "commands": []string{`set PATH=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\bin;%PATH%`}}},
			{"id": "gpu", "status": "ok", "summary": "RTX 4070 GPU-1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901"},
			{"id": "env-token", "status": "warn", "summary": "Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345 in a config"},
		},
		"selection": map[string]any{"backend": "cuda", "cuda": "12.4.131", "cuda_architectures": "89-real"},
		"summary":   map[string]any{"ok": 1, "warn": 1, "error": 1},
		"snapshot":  s,
	}
}

func writeBuild(t *testing.T, dir string) string {
	t.Helper()
	bd := filepath.Join(dir, "build-1")
	if err := os.MkdirAll(bd, 0o755); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	for i := 0; i < 500; i++ {
		log.WriteString("[1/2] Building CUDA object x.cu.o\n")
	}
	log.WriteString(`C:\Users\Jane Doe\llama.cpp\ggml\src\ggml-cuda\acc.cu` + "\n")
	log.WriteString(`C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\include\crt/host_config.h(164): fatal error C1189: #error:  -- unsupported Microsoft Visual Studio version!` + "\n")
	log.WriteString("curl -H \"Authorization: Bearer " + hfToken + "\" https://huggingface.co/api\n")
	if err := os.WriteFile(filepath.Join(bd, "build.log"), []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// Constructed, not a recorded llamactl manifest (those name no log and
	// carry no host): it plants personal data in fields a manifest might
	// hold, and names its log like a foreign tool's manifest would.
	m := `{"schema":1,"llama_cpp":"b9312","source":"C:\\Users\\Jane Doe\\llama.cpp","host":"JANE-LAPTOP","log":"build.log"}`
	p := filepath.Join(bd, "manifest.json")
	if err := os.WriteFile(p, []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func options(t *testing.T, out string, zipped bool) Options {
	s := windowsSnapshot()
	return Options{
		Path: out, Zip: zipped, Redact: true, Snapshot: s, Doctor: doctorDoc(s),
		Llamactl: buildinfo.Info{Version: "0.1.0", Commit: "0123456789abcdef"}, Env: windowsEnv(),
		BuildManifests: []string{writeBuild(t, t.TempDir())},
		Now:            func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) },
	}
}

var planted = []string{"Jane", "JANEDO~1", "JANE-LAPTOP", "jane-laptop", "Fabrikam", hfToken, ghToken, awsKey,
	"1b2c3d4e", "1652523045678", "9C-B6-D0", "10.20.30.40", "abcdefghijklmnopqrstuvwxyz012345"}

func readZip(t *testing.T, p string) map[string]string {
	t.Helper()
	zr, err := zip.OpenReader(p)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string]string{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		out[f.Name] = string(b)
	}
	return out
}

func TestWindowsZipIsRedacted(t *testing.T) {
	p := filepath.Join(t.TempDir(), "report.zip")
	res, err := Write(options(t, p, true))
	if err != nil {
		t.Fatal(err)
	}
	files := readZip(t, p)
	if files["report.json"] == "" || files["report.md"] == "" || len(files) != 5 {
		t.Fatalf("files %v (result %v)", keys(files), res.Files)
	}
	for name, body := range files {
		for _, s := range planted {
			if strings.Contains(body, s) {
				t.Errorf("%s still contains %q", name, s)
			}
		}
	}
	js := files["report.json"]
	for _, want := range []string{`C:\\Users\\<user>\\AppData`, `"uuid": "<gpu-uuid-1>"`, `"hostname": "<host>"`, `OneDrive - <org>`, `"HF_TOKEN": "<secret>"`, `-DHF=<secret>`,
		`"CUDACXX": "C:\\Users\\<user>\\cuda\\bin\\nvcc.exe"`, `"FAVORITE_COLOR": "<redacted>"`} {
		if !strings.Contains(js, want) {
			t.Errorf("report.json lacks %q", want)
		}
	}
	if !strings.Contains(files["raw/nvidia-smi_-q.txt"], "GPU UUID : <gpu-uuid-1>") {
		t.Errorf("raw output not consistently redacted: %q", files["raw/nvidia-smi_-q.txt"])
	}
	if !strings.Contains(files["raw/ipconfig_all.txt"], "<mac-1>") || !strings.Contains(files["raw/ipconfig_all.txt"], "<ip-1>") {
		t.Errorf("ipconfig: %q", files["raw/ipconfig_all.txt"])
	}
	if res.Counts["user"] == 0 || res.Counts["secret"] == 0 || !res.Redacted {
		t.Errorf("result %+v", res)
	}
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// report.json must stay replayable: top-level "snapshot" parses back.
func TestReportJSONShape(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := Write(options(t, dir, false)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema    int               `json:"schema"`
		Kind      string            `json:"kind"`
		Llamactl  buildinfo.Info    `json:"llamactl"`
		Snapshot  *machine.Snapshot `json:"snapshot"`
		Findings  []map[string]any  `json:"findings"`
		Selection map[string]any    `json:"selection"`
		Builds    []Build           `json:"builds"`
		Redaction Redaction         `json:"redaction"`
		Doctor    map[string]any    `json:"doctor"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != 1 || doc.Kind != "llamactl-report" || doc.Llamactl.Version != "0.1.0" {
		t.Errorf("header %+v", doc)
	}
	if doc.Snapshot == nil || doc.Snapshot.NVIDIA.GPUs[0].ComputeCapability != "8.9" || doc.Snapshot.Toolkits[0].Version != "12.4.131" {
		t.Fatalf("snapshot did not survive: %+v", doc.Snapshot)
	}
	if len(doc.Findings) != 3 || doc.Selection["backend"] != "cuda" {
		t.Errorf("findings/selection: %v %v", doc.Findings, doc.Selection)
	}
	if _, dup := doc.Doctor["snapshot"]; dup {
		t.Error("snapshot duplicated under doctor")
	}
	if len(doc.Builds) != 1 || doc.Builds[0].Diagnosis == nil || len(doc.Builds[0].Diagnosis.Findings) != 1 ||
		doc.Builds[0].Diagnosis.Findings[0].ID != "nvcc-unsupported-msvc" {
		t.Errorf("builds: %+v", doc.Builds)
	}
	if n := strings.Count(doc.Builds[0].LogTail, "\n") + 1; n > logTailLines {
		t.Errorf("log tail has %d lines", n)
	}
	if !doc.Redaction.Applied {
		t.Error("redaction not recorded")
	}
	if _, err := os.Stat(filepath.Join(dir, "raw")); err == nil {
		t.Error("raw outputs written outside a zip")
	}
}

func TestMarkdownSummaryFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := Write(options(t, dir, false)); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	md := string(b)
	table := strings.Index(md, "| OS | Windows 11 Pro 10.0.22631 (amd64) |")
	findings := strings.Index(md, "## Findings")
	det := strings.Index(md, "<details>")
	if table < 0 || findings < table || det < findings {
		t.Fatalf("order: table %d findings %d details %d\n%s", table, findings, det, md)
	}
	for _, want := range []string{"| GPUs | NVIDIA GeForce RTX 4070 (CC 8.9, 12282 MiB) |", "| doctor | 1 error(s), 1 warning(s) |",
		"| selection | cuda, CUDA 12.4.131, archs 89-real |", "| error | `cuda-msvc-compat` |", "`nvcc-unsupported-msvc` (line 199 of the log tail)"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if strings.Contains(md, "| ok | `gpu`") {
		t.Error("ok checks listed among findings")
	}
}

func TestLinuxShapedReport(t *testing.T) {
	s := &machine.Snapshot{Schema: 1,
		OS:  machine.OSInfo{GOOS: "linux", Arch: "amd64", Name: "Ubuntu 24.04", Hostname: "gpu-node-07", User: "carol", HomeDir: "/home/carol"},
		Env: map[string]string{"LD_LIBRARY_PATH": "/home/carol/.local/lib:/usr/local/cuda/lib64", "CUDA_VISIBLE_DEVICES": "0"},
		WSL: machine.WSL{IsWSL: true, Version: 2, LibcudaPaths: []string{"/usr/lib/wsl/lib/libcuda.so.1"}},
		Raw: map[string]string{"ip addr": "inet 172.16.5.9/24 link/ether 00:15:5d:aa:bb:cc inet6 2001:db8:85a3:0:0:8a2e:370:7334/64", "uname -a": "Linux gpu-node-07 5.15.167.4-microsoft-standard-WSL2"},
	}
	env := map[string]string{"USER": "carol", "HOME": "/home/carol", "HOSTNAME": "gpu-node-07", "OPENAI_API_KEY": "sk-plantedplantedplanted0123456789"}
	p := filepath.Join(t.TempDir(), "r.zip")
	if _, err := Write(Options{Path: p, Redact: true, Snapshot: s, Env: env, Doctor: map[string]any{"schema": 1, "checks": []any{}}}); err != nil {
		t.Fatal(err)
	}
	for name, body := range readZip(t, p) {
		for _, leak := range []string{"carol", "gpu-node-07", "172.16.5.9", "00:15:5d", "2001:db8", "sk-planted"} {
			if strings.Contains(body, leak) {
				t.Errorf("%s contains %q", name, leak)
			}
		}
	}
}

// TestSelfCheckRefusesLeak forces a leak past the redactor (as a redaction
// bug would) and checks that nothing is written and the error says why.
func TestSelfCheckRefusesLeak(t *testing.T) {
	defer func(old func([]file)) { tamper = old }(tamper)
	tamper = func(fs []file) {
		fs[1].data = append(fs[1].data, []byte("\nleaked: Jane Doe on JANE-LAPTOP with "+hfToken+"\n")...)
	}
	p := filepath.Join(t.TempDir(), "report.zip")
	_, err := Write(options(t, p, true))
	var le *LeakError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"refusing to write", "the user name in report.md", "the host name in report.md", "the value of HF_TOKEN in report.md"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, hfToken) || strings.Contains(msg, "Jane") {
		t.Errorf("the refusal repeats the secret: %s", msg)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Error("a report was written despite the leak")
	}
}

func TestNoRedactWarnsLoudly(t *testing.T) {
	var errOut strings.Builder
	o := options(t, filepath.Join(t.TempDir(), "out"), false)
	o.Redact = false
	o.Stderr = &errOut
	res, err := Write(o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "WARNING: --no-redact: this report is NOT redacted") || res.Redacted {
		t.Errorf("stderr %q result %+v", errOut.String(), res)
	}
	md, _ := os.ReadFile(filepath.Join(o.Path, "report.md"))
	js, _ := os.ReadFile(filepath.Join(o.Path, "report.json"))
	if !strings.Contains(string(md), "WARNING: NOT REDACTED") || !strings.Contains(string(js), `"applied": false`) {
		t.Error("unredacted bundle does not say so")
	}
	if !strings.Contains(string(js), "Jane Doe") {
		t.Error("--no-redact should keep the real values")
	}
}

func TestBadInputs(t *testing.T) {
	if _, err := Write(Options{}); err == nil {
		t.Error("no path accepted")
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "manifest.json")
	os.WriteFile(bad, []byte("not json"), 0o644)
	o := Options{Path: filepath.Join(dir, "out"), Redact: true, BuildManifests: []string{bad, filepath.Join(dir, "missing.json")}}
	if _, err := Write(o); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "out", "report.json"))
	if !strings.Contains(string(b), "is not JSON") || !strings.Contains(string(b), "missing.json") {
		t.Errorf("manifest errors not recorded: %s", b)
	}
}

func TestTail(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.log")
	var b strings.Builder
	for i := 0; i < 1000; i++ {
		b.WriteString("line\n")
	}
	b.WriteString("last")
	os.WriteFile(p, []byte(b.String()), 0o644)
	got, err := Tail(p, 64, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got, "line\nlast") || strings.Count(got, "\n") != 4 {
		t.Errorf("%q", got)
	}
}

func TestFindBuildsInCache(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, ".cache", "llamactl")
	mk := func(rel, name, body string, age time.Duration) {
		p := filepath.Join(root, rel, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
		when := time.Now().Add(-age)
		os.Chtimes(p, when, when)
	}
	mk("builds/old", "manifest.json", `{"schema":1}`, 72*time.Hour)
	mk("builds/ok", "manifest.json", `{"schema":1,"backend":"cuda"}`, 2*time.Hour)
	mk("builds/ok", "llamactl-build.log", "[1/1] done\n", 2*time.Hour)
	mk("builds/failed", "llamactl-build.log", "nvcc fatal   : Unsupported gpu architecture 'compute_120'\n", time.Hour)
	mk("builds/older", "manifest.json", `{"schema":1}`, 96*time.Hour)
	got := FindBuilds(root, 3)
	want := []string{filepath.Join(root, "builds/failed/llamactl-build.log"), filepath.Join(root, "builds/ok/manifest.json"), filepath.Join(root, "builds/old/manifest.json")}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if CacheRoot(map[string]string{"HOME": home}) != root || CacheRoot(map[string]string{"LLAMACTL_CACHE_DIR": "/x", "HOME": home}) != "/x" || CacheRoot(nil) != "" {
		t.Error("CacheRoot")
	}
	// Write finds them by itself from the environment.
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Write(Options{Path: out, Redact: true, Env: map[string]string{"HOME": home}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(out, "report.json"))
	var doc Doc
	json.Unmarshal(b, &doc)
	if len(doc.Builds) != 3 || doc.Builds[0].Diagnosis == nil || doc.Builds[0].Diagnosis.Findings[0].ID != "nvcc-arch-too-new" || doc.Builds[1].LogTail != "[1/1] done" {
		t.Errorf("builds %+v", doc.Builds)
	}
}

func TestZipIntoExistingFolder(t *testing.T) {
	dir := t.TempDir()
	o := options(t, dir, true)
	res, err := Write(o)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "llamactl-report-20261129-120000.zip")
	if res.Path != want {
		t.Fatalf("path %s", res.Path)
	}
	if files := readZip(t, want); files["report.json"] == "" {
		t.Error("no report.json in the zip")
	}
}

// A manifest's "log" field never leads outside its folder: a planted
// manifest must not pull another file into a bundle meant for an issue.
func TestManifestLogStaysInItsFolder(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(secret, []byte("PRIVATE-KEY-MATERIAL\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, log := range []string{secret, "../" + filepath.Base(filepath.Dir(secret)) + "/id_rsa", "sub/../../x"} {
		b, _ := json.Marshal(map[string]any{"schema": 1, "log": log})
		p := filepath.Join(dir, "manifest.json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := readBuild(p); strings.Contains(got.LogTail, "PRIVATE-KEY") || got.Error != "" {
			t.Errorf("log %q: tail %q, error %q", log, got.LogTail, got.Error)
		}
	}
	// The log beside the manifest is still read.
	os.WriteFile(filepath.Join(dir, "llamactl-build.log"), []byte("ninja: build stopped: subcommand failed.\n"), 0o644)
	if got := readBuild(filepath.Join(dir, "manifest.json")); !strings.Contains(got.LogTail, "ninja: build stopped") {
		t.Errorf("beside log not read: %+v", got)
	}
}
