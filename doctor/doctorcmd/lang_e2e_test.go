package doctorcmd_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/doctor/doctorcmd"
	"github.com/llamactl/llamactl/internal/cli"
	"github.com/llamactl/llamactl/internal/cmdutil"
)

func executeEnv(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	f, out, errOut := cmdutil.NewTest(env, nil)
	code := cli.Execute(f, args)
	return code, out.String(), errOut.String()
}

var unfilled = regexp.MustCompile(`\{[a-z_]+\}`)

// commandLines are the fix commands the human report prints (indented
// under a finding's "→" line), in order.
func commandLines(doc doctorcmd.Doc) []string {
	var out []string
	for _, c := range doc.Checks {
		if c.Fix != nil && (c.Status == "warn" || c.Status == "error") {
			out = append(out, c.Fix.Commands...)
		}
	}
	return out
}

// A recorded Windows machine diagnosed with --lang zh-CN prints Chinese
// section titles, findings and summary, fills every placeholder, and keeps
// the English run's exit code and exact commands.
func TestLangZhCNWindowsSnapshot(t *testing.T) {
	snap := snaps + "win-vs2022-17.11-cuda12.3-rtx4060.json"
	enCode, en, _ := execute(t, "doctor", "--replay", snap)
	zhCode, zh, errOut := execute(t, "doctor", "--replay", snap, "--lang", "zh-CN")
	if zhCode != enCode || zhCode != cmdutil.ExitFindings {
		t.Fatalf("exit zh %d, en %d, want both 1; stderr %s", zhCode, enCode, errOut)
	}
	for _, want := range []string{"主机与环境", "NVIDIA 驱动程序与 GPU", "CUDA 工具包", "Visual Studio 与构建工具", "PATH 与库", "选择结果",
		"MSVC 版本与 CUDA：", "太新", "nvcc 会报错 'unsupported Microsoft Visual Studio version'", "安装 CUDA 12.5.1",
		"请先修复上面的错误", "1 个警告，2 个错误", "计算能力 8.9"} {
		if !strings.Contains(zh, want) {
			t.Errorf("zh-CN output lacks %q:\n%s", want, zh)
		}
	}
	for _, english := range []string{"Host & environment", "Selection", "(cl 19.41.34123) is too new", "Fix the errors above", "skipped,"} {
		if strings.Contains(zh, english) {
			t.Errorf("zh-CN output still has %q", english)
		}
	}
	if m := unfilled.FindAllString(zh, -1); len(m) > 0 {
		t.Errorf("unfilled placeholders %v in:\n%s", m, zh)
	}
	_, js, _ := execute(t, "doctor", "--replay", snap, "--json")
	cmds := commandLines(decode(t, js))
	if len(cmds) == 0 {
		t.Fatal("the snapshot has no fix commands to compare")
	}
	if a, b := indentedCommands(en), indentedCommands(zh); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("commands differ:\nen %q\nzh %q", a, b)
	}
	for _, c := range cmds {
		if !strings.Contains(zh, "\n          "+c+"\n") {
			t.Errorf("zh-CN output lacks the command line %q", c)
		}
	}
}

// indentedCommands are the report's command lines (10 spaces in).
func indentedCommands(out string) []string {
	var cmds []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "          ") {
			cmds = append(cmds, strings.TrimSpace(l))
		}
	}
	return cmds
}

// Every recorded snapshot renders in Chinese with its English exit code and
// commands and no unfilled placeholder.
func TestLangZhCNEverySnapshot(t *testing.T) {
	files, _ := filepath.Glob(snaps + "*.json")
	if len(files) < 10 {
		t.Fatalf("only %d snapshots", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			enCode, en, _ := execute(t, "doctor", "--replay", f, "--verbose")
			zhCode, zh, _ := executeEnv(t, map[string]string{"LANG": "zh_CN.UTF-8"}, "doctor", "--replay", f, "--verbose")
			if enCode != zhCode {
				t.Errorf("exit en %d, zh %d", enCode, zhCode)
			}
			if a, b := indentedCommands(en), indentedCommands(zh); strings.Join(a, "\n") != strings.Join(b, "\n") {
				t.Errorf("commands differ:\nen %q\nzh %q", a, b)
			}
			if m := unfilled.FindAllString(zh, -1); len(m) > 0 {
				t.Errorf("unfilled placeholders %v", m)
			}
			if !strings.Contains(zh, "选择结果") || !strings.Contains(zh, "主机与环境") {
				t.Errorf("no Chinese section titles (LANG=zh_CN.UTF-8):\n%s", zh)
			}
		})
	}
}

// --json is the stable interface: the same document with or without
// --lang zh-CN or a Chinese environment (timings aside).
func TestJSONIgnoresLang(t *testing.T) {
	snap := snaps + "win-zh-cn-vs2017-cuda11.8.json"
	c1, en, _ := execute(t, "doctor", "--replay", snap, "--json")
	c2, zh, _ := execute(t, "doctor", "--replay", snap, "--json", "--lang", "zh-CN")
	c3, env, _ := executeEnv(t, map[string]string{"LLAMACTL_LANG": "zh-CN", "LC_ALL": "zh_CN.UTF-8"}, "doctor", "--replay", snap, "--json")
	if c1 != c2 || c1 != c3 {
		t.Errorf("exit codes %d %d %d", c1, c2, c3)
	}
	if norm(t, en) != norm(t, zh) || norm(t, en) != norm(t, env) {
		t.Error("--json differs with --lang zh-CN or a Chinese environment")
	}
	if strings.Contains(zh, "驱动程序") {
		t.Error("--json carries Chinese text")
	}
}

// An unknown --lang is a usage error (exit 2, nothing on stdout); --lang en
// overrides a Chinese locale; --list-checks follows the language too.
func TestLangFlagErrorsAndOverrides(t *testing.T) {
	code, out, errOut := execute(t, "doctor", "--replay", snaps+"linux-opencl-no-icd.json", "--lang", "fr")
	if code != cmdutil.ExitUsage || out != "" || !strings.Contains(errOut, "zh-CN") {
		t.Errorf("--lang fr: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	_, out, _ = executeEnv(t, map[string]string{"LANG": "zh_CN.UTF-8"}, "doctor", "--replay", snaps+"linux-opencl-no-icd.json", "--lang", "en")
	if !strings.Contains(out, "Selection") || strings.Contains(out, "选择结果") {
		t.Errorf("--lang en under a Chinese locale is not English:\n%s", out)
	}
	_, out, _ = execute(t, "doctor", "--list-checks", "--lang", "zh-CN")
	if !strings.Contains(out, "适合本机的 CUDA 版本") || !strings.Contains(out, "cuda.select") {
		t.Errorf("--list-checks --lang zh-CN:\n%s", out)
	}
	_, help, _ := execute(t, "doctor", "--help")
	if !strings.Contains(help, "--lang") || !strings.Contains(help, "--json output\nalways stays English") && !strings.Contains(help, "--json always stays English") {
		t.Errorf("--help does not say --json stays English:\n%s", help)
	}
}
