package probe

import (
	"errors"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/machine"
)

func TestWindowsPaths(t *testing.T) {
	if got := joinPath("windows", `C:\Program Files\`, "NVIDIA", `bin/nvcc.exe`); got != `C:\Program Files\NVIDIA\bin\nvcc.exe` {
		t.Errorf("join: %q", got)
	}
	if got := dirName("windows", `C:\nvcc.exe`); got != `C:\` {
		t.Errorf("dir of root file: %q", got)
	}
	got := splitPathList("windows", `"C:\Program Files\Git\cmd";;C:\Windows\system32\;%SystemRoot%`)
	if strings.Join(got, "|") != `C:\Program Files\Git\cmd|C:\Windows\system32|%SystemRoot%` {
		t.Errorf("split: %q", got)
	}
	if !samePath("windows", `c:\windows\SYSTEM32\`, `C:\Windows\System32`) || samePath("linux", "/usr/Bin", "/usr/bin") {
		t.Error("samePath case rules")
	}
}

func TestMemFS(t *testing.T) {
	m := NewMemFS("windows", map[string]string{`C:\CUDA\v12.4\bin\nvcc.exe`: "", `C:\empty\`: "", `C:\a\version.txt`: "CUDA Version 10.2.89"})
	if !isFile(m, `c:\cuda\V12.4\BIN\NVCC.EXE`) || !isDir(m, `C:\CUDA`) || !isDir(m, `C:\empty`) || isFile(m, `C:\empty`) {
		t.Error("case-insensitive lookups and implied dirs")
	}
	if got := globDir(m, "windows", `C:\CUDA`, "V*"); len(got) != 1 || got[0] != `C:\CUDA\v12.4` {
		t.Errorf("glob: %v", got)
	}
	m.SetError(`C:\a\version.txt`, errors.New("permission denied"))
	if _, err := m.ReadFile(`C:\a\version.txt`); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("injected error: %v", err)
	}
	l := NewMemFS("linux", map[string]string{"/usr/local/cuda-12.8/bin/nvcc": ""})
	l.AddLink("/usr/local/cuda", "/usr/local/cuda-12.8")
	if rp, err := l.Realpath("/usr/local/cuda/bin/nvcc"); err != nil || rp != "/usr/local/cuda-12.8/bin/nvcc" {
		t.Errorf("realpath: %q %v", rp, err)
	}
	if got := globDir(l, "linux", "/usr/local", "cuda*"); strings.Join(got, ",") != "/usr/local/cuda,/usr/local/cuda-12.8" {
		t.Errorf("links listed: %v", got)
	}
}

func TestMemRegistry(t *testing.T) {
	r := &MemRegistry{
		Keys:   map[string]map[string]string{`HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing Toolkit\CUDA\v12.4`: {"InstallDir": `C:\CUDA\v12.4\`}},
		Errors: map[string]string{`HKLM\SOFTWARE\Khronos\OpenCL\Vendors`: "Access is denied."},
	}
	subs, err := r.SubKeys(`hklm\software\nvidia corporation\gpu computing toolkit\cuda`)
	if err != nil || len(subs) != 1 || subs[0] != "v12.4" {
		t.Errorf("subkeys: %v %v", subs, err)
	}
	if v, err := r.Value(`HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing Toolkit\CUDA\v12.4`, "installdir"); err != nil || v != `C:\CUDA\v12.4\` {
		t.Errorf("value: %q %v", v, err)
	}
	if _, err := r.ValueNames(`HKLM\SOFTWARE\Khronos\OpenCL\Vendors`); err == nil || isNotFound(err) {
		t.Errorf("denied key: %v", err)
	}
	if _, err := r.Value(`HKLM\SOFTWARE\Nope`, "x"); !isNotFound(err) {
		t.Errorf("missing key: %v", err)
	}
}

// PATHEXT decides which of nvcc.bat / nvcc.exe in one dir runs; PATH order
// decides between dirs.
func TestSearchPathPATHEXT(t *testing.T) {
	files := map[string]string{`C:\a\nvcc.bat`: "", `C:\a\nvcc.exe`: "", `C:\b\nvcc.exe`: "", `C:\Windows\System32\`: ""}
	env := map[string]string{"PATHEXT": ".EXE;.BAT", "SystemRoot": `C:\Windows`}
	d := withDefaults(Deps{GOOS: "windows", FS: NewMemFS("windows", files), Getenv: func(k string) string { return env[k] }})
	path := []machine.PathEntry{{Dir: `C:\b`, Exists: true}, {Dir: `C:\a`, Exists: true}, {Dir: `%SystemRoot%\System32`, Exists: true}}
	got := searchPath(&d, path, "nvcc")
	if strings.Join(got, "|") != `C:\b\nvcc.exe|C:\a\nvcc.exe|C:\a\nvcc.bat` {
		t.Errorf("hits: %v", got)
	}
	env["PATHEXT"] = ".BAT;.EXE"
	if got := searchPath(&d, path[1:], "nvcc"); got[0] != `C:\a\nvcc.bat` {
		t.Errorf("PATHEXT order: %v", got)
	}
	if got := expandWinVars(&d, `%SystemRoot%\System32;%UNSET%`); got != `C:\Windows\System32;%UNSET%` {
		t.Errorf("expand: %q", got)
	}
}

func TestFactsLoad(t *testing.T) {
	if len(facts.Tools.Names) < 10 || facts.PathextDefault.Value == "" || facts.CUDARegistryKey.Key == "" {
		t.Errorf("facts = %+v", facts)
	}
	names, prefixes := EnvAllowlist()
	if !containsExact(names, "CUDA_VISIBLE_DEVICES") || !containsExact(prefixes, "CUDA_PATH_V") {
		t.Errorf("allowlist: %v %v", names, prefixes)
	}
}

// The environment keeps only allowlisted variables: a token must not leak
// into a snapshot a user sends to support.
func TestEnvAllowlistDropsSecrets(t *testing.T) {
	env := []string{"GITHUB_TOKEN=secret", "CUDA_PATH_V12_4=C:\\x", "cuda_visible_devices=0", "HF_TOKEN=x", "LD_LIBRARY_PATH=/a"}
	lin := allowedEnv(&Deps{GOOS: "linux", Environ: func() []string { return env }})
	if _, ok := lin["GITHUB_TOKEN"]; ok || lin["CUDA_PATH_V12_4"] == "" || lin["LD_LIBRARY_PATH"] != "/a" || lin["cuda_visible_devices"] != "" {
		t.Errorf("linux env = %v", lin)
	}
	win := allowedEnv(&Deps{GOOS: "windows", Environ: func() []string { return env }})
	if _, ok := win["cuda_visible_devices"]; !ok || len(win) != 3 {
		t.Errorf("windows env (case-insensitive names) = %v", win)
	}
}
