package explaincmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cli"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/testutil"
)

func explain(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	f, out, errOut := cmdutil.NewTest(env, nil)
	code := cli.Execute(f, append([]string{"explain"}, args...))
	return code, out.String(), errOut.String()
}

// --lang zh-CN (or LLAMACTL_LANG, or a zh_CN locale) prints the findings,
// labels and explain's own sentences in Chinese; the ID, the commands and
// the log excerpt stay as they are.
func TestExplainInChinese(t *testing.T) {
	log := "../../testdata/logs/here-nvcc118-sm100.log"
	for _, c := range []struct {
		env  map[string]string
		args []string
	}{
		{nil, []string{"--lang", "zh-CN", log}},
		{map[string]string{"LLAMACTL_LANG": "zh"}, []string{log}},
		{map[string]string{"LANG": "zh_CN.UTF-8"}, []string{log}},
	} {
		code, out, errOut := explain(t, c.env, c.args...)
		if code != cmdutil.ExitFindings {
			t.Fatalf("%v: exit %d, stderr %q", c.args, code, errOut)
		}
		for _, want := range []string{"nvcc-arch-too-new", "nvcc 比所请求的 GPU 架构旧", "原因: ", "修复: ", "详情: docs/support.md#nvcc-arch-too-new", "(行 6)"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v %v: no %q in\n%s", c.env, c.args, want, out)
			}
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), ">") || strings.Contains(l, "$ ") {
				continue // the log's own lines and commands
			}
			if w := testutil.EnglishLeft(l); w != "" {
				t.Errorf("English left (%q): %s", w, l)
			}
		}
	}

	// No match: the sentence and the line count are Chinese.
	path := filepath.Join(t.TempDir(), "one.log")
	if err := os.WriteFile(path, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := explain(t, nil, "--lang", "zh-CN", path); code != 0 || !strings.Contains(out, "没有已知的失败与此日志匹配。") || !strings.Contains(out, "one.log, 1 行)") {
		t.Errorf("exit %d: %q", code, out)
	}
	// Usage errors are Chinese too, with the same next command.
	if code, _, errOut := explain(t, nil, "--lang", "zh-CN", "/nonexistent.log"); code != cmdutil.ExitUsage || !strings.Contains(errOut, "无法读取 /nonexistent.log") || !strings.Contains(errOut, "| llamactl explain") {
		t.Errorf("missing file: exit %d, %q", code, errOut)
	}
	if code, _, errOut := explain(t, nil, "--lang", "fr", log); code != cmdutil.ExitUsage || !strings.Contains(errOut, "llamactl explain build.log --lang zh-CN") {
		t.Errorf("bad --lang: exit %d, %q", code, errOut)
	}
}

// --json is the same bytes whatever the language.
func TestExplainJSONStaysEnglish(t *testing.T) {
	for _, log := range []string{"../../testdata/logs/here-nvcc118-sm100.log", "../../testdata/logs/ok-here-cuda-build-with-warning.log"} {
		_, en, _ := explain(t, nil, "--json", log)
		_, zh, _ := explain(t, map[string]string{"LANG": "zh_CN.UTF-8"}, "--json", "--lang", "zh-CN", log)
		if en != zh || en == "" {
			t.Errorf("%s: --json differs with --lang zh-CN:\n%s\n%s", log, en, zh)
		}
	}
}
