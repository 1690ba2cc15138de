package msvcenv

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/proc"
)

func recording(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/build/vcvars/" + name)
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(b), "# ---\n")
	if !ok {
		t.Fatalf("%s has no header", name)
	}
	return body
}

const vcvars = `C:\Program Files\Microsoft Visual Studio\2022\Community\VC\Auxiliary\Build\vcvarsall.bat`

func TestImportRecordedEnvironment(t *testing.T) {
	out := recording(t, "vcvarsall-x64-ok.txt")
	// The PATH before vcvars ran is in the recording itself.
	prePath := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "__VSCMD_PREINIT_PATH=") {
			prePath = strings.TrimPrefix(l, "__VSCMD_PREINIT_PATH=")
		}
	}
	base := []string{"Path=" + prePath, "ytdash=-N 10 --extractor-args \"youtube:formats=dashy\""}
	dir := t.TempDir()
	cmd := Command(filepath.Join(dir, "llamactl-vcvars.cmd"))
	r := &proc.Replay{Commands: map[string]proc.Recording{
		strings.TrimSpace(cmd.Name + " " + strings.Join(cmd.Args, " ")): {Stdout: out},
	}}
	env, err := Import(context.Background(), r, dir, vcvars, []string{"x64"}, base)
	if err != nil {
		t.Fatal(err)
	}
	path := Get(env.Vars, "PATH")
	if !strings.HasPrefix(path, `C:\Program Files\Microsoft Visual Studio\2022\Community\VC\Tools\MSVC\14.38.33130\bin\HostX86\x86;`) {
		t.Errorf("PATH = %.120s", path)
	}
	var changed []string
	for _, c := range env.Changes {
		changed = append(changed, c.Name)
	}
	joined := strings.Join(changed, " ")
	for _, want := range []string{"PATH", "__VSCMD_PREINIT_VCToolsVersion", "WindowsSDK_ExecutablePath_x64"} {
		if !strings.Contains(joined, want) {
			t.Errorf("changes lack %s: %v", want, changed)
		}
	}
	if strings.Contains(joined, "ytdash") {
		t.Error("an unchanged variable is reported as changed")
	}
	// One PATH, whatever its case on either side.
	n := 0
	for _, kv := range env.Vars {
		if strings.HasPrefix(strings.ToUpper(kv), "PATH=") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d PATH entries", n)
	}
}

func TestImportReportsVcvarsErrors(t *testing.T) {
	_, err := Parse(recording(t, "vcvarsall-x64-toolset-missing.txt"), 0, vcvars, nil)
	if err == nil || !strings.Contains(err.Error(), "Toolset directory for version '14.38' was not found") {
		t.Fatalf("err = %v", err)
	}
}

func TestImportFailsWithoutEnvironment(t *testing.T) {
	if _, err := Parse("The system cannot find the path specified.\r\n", 1, vcvars, nil); err == nil {
		t.Fatal("no error for a vcvarsall that printed nothing")
	}
	r := &proc.Replay{}
	if _, err := Import(context.Background(), r, t.TempDir(), vcvars, []string{"x64"}, nil); err == nil {
		t.Fatal("no error when cmd.exe is missing")
	}
}

func TestScript(t *testing.T) {
	got := Script(vcvars, []string{"x64", "-vcvars_ver=14.38"})
	want := "@echo off\r\ncall \"" + vcvars + "\" x64 -vcvars_ver=14.38\r\necho ===LLAMACTL-ENV===\r\nset\r\n"
	if got != want {
		t.Errorf("script = %q", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("x\n===LLAMACTL-ENV===\nA=1\nPATH=x\n")
	f.Add("[ERROR:x] y\n===LLAMACTL-ENV===\n")
	f.Fuzz(func(t *testing.T, out string) {
		env, err := Parse(out, 0, "v.bat", []string{"A=0"})
		if err == nil && Get(env.Vars, "A") == "" && !strings.Contains(out, "A=") && !strings.Contains(strings.ToUpper(out), "A=") {
			t.Fatalf("base variable lost: %v", env.Vars)
		}
	})
}
