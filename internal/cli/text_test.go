package cli

import (
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/testutil"
)

// data/text.zh-CN.json translates every sentence of data/text.en.json, and
// cobra's and pflag's errors read back into their translation.
func TestCLITexts(t *testing.T) {
	en, zh := testutil.CheckTextFiles(t, textEN, textZhCN)
	testutil.CheckLines(t, en, zh, cliTexts(lang.ZhCN).Line, nil)
}

func runLang(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	f, out, errOut := cmdutil.NewTest(env, nil)
	code := Execute(f, args)
	return code, out.String(), errOut.String()
}

// Usage errors, cobra's own included, in Chinese with --lang zh-CN
// anywhere on the line or a Chinese locale; English otherwise, as before.
func TestUsageErrorsInChinese(t *testing.T) {
	for _, c := range []struct {
		args     []string
		en, zh   string
		helpLine bool
	}{
		{[]string{"doctr"}, `unknown command "doctr" for "llamactl"`, `llamactl" 没有命令 "doctr"`, true},
		{[]string{"doctor", "--no-such-flag"}, "unknown flag: --no-such-flag", "未知选项：--no-such-flag", true},
		{[]string{"explain", "a.log", "b.log"}, "accepts at most 1 arg(s), received 2", "最多接受 1 个参数，收到了 2 个", true},
		{[]string{"run", "--port", "x"}, `invalid argument "x" for "--port" flag`, `"--port" 选项的值 "x" 无效`, true},
		{[]string{"matrix", "nope"}, `unknown command "nope" for "llamactl matrix": choose one of gpu, cuda, resolve`, `"llamactl matrix" 没有命令 "nope"：请选择 gpu, cuda, resolve 之一`, true},
		{[]string{"completion", "tcsh"}, `unknown shell "tcsh": choose bash, zsh, fish or powershell`, `未知的 shell "tcsh"：请选择 bash、zsh、fish 或 powershell`, false},
		{[]string{"version", "extra"}, `unknown command "extra" for "llamactl version"`, `"llamactl version" 没有命令 "extra"`, true},
	} {
		code, _, errOut := runLang(t, nil, c.args...)
		if code != cmdutil.ExitUsage || !strings.Contains(errOut, c.en) || c.helpLine != strings.Contains(errOut, "--help' for usage.") {
			t.Errorf("%v: exit %d, want English %q:\n%s", c.args, code, c.en, errOut)
		}
		for _, zh := range []struct {
			env  map[string]string
			args []string
		}{
			{nil, append([]string{"--lang", "zh-CN"}, c.args...)},
			{nil, append(append([]string{}, c.args...), "--lang=zh-CN")},
			{map[string]string{"LANG": "zh_CN.UTF-8"}, c.args},
		} {
			code, _, errOut := runLang(t, zh.env, zh.args...)
			if code != cmdutil.ExitUsage || !strings.Contains(errOut, c.zh) || c.helpLine != strings.Contains(errOut, "查看用法") {
				t.Errorf("%v %v: exit %d, want %q:\n%s", zh.env, zh.args, code, c.zh, errOut)
			}
			for _, l := range strings.Split(errOut, "\n") {
				if w := testutil.EnglishPhrase(l); w != "" {
					t.Errorf("%v: English left (%q): %s", zh.args, w, l)
				}
			}
		}
	}
}

// version's line in Chinese; --json the same document.
func TestVersionInChinese(t *testing.T) {
	code, out, _ := runLang(t, nil, "--lang", "zh-CN", "version")
	if code != 0 || !strings.HasPrefix(out, "llamactl ") || !strings.Contains(out, "构建于") {
		t.Errorf("exit %d: %q", code, out)
	}
	_, en, _ := runLang(t, nil, "version", "--json")
	_, zh, _ := runLang(t, nil, "version", "--json", "--lang", "zh-CN")
	if en != zh {
		t.Errorf("--json differs:\n%s\n%s", en, zh)
	}
	if code, _, errOut := runLang(t, nil, "version", "--lang", "xx"); code != cmdutil.ExitUsage || !strings.Contains(errOut, "unknown language") {
		t.Errorf("--lang xx: exit %d %q", code, errOut)
	}
}
