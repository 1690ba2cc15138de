package patchescmd

import (
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/testutil"
)

// data/text.zh-CN.json translates every sentence of the command.
func TestZhCNTexts(t *testing.T) {
	testutil.CheckTextFiles(t, textEN, textZhCN)
}

// list and show --lang zh-CN print Chinese titles, reasons and labels; the
// IDs, flags, CMake entries and diffs stay; --json is the same bytes.
func TestPatchesInChinese(t *testing.T) {
	out, _, code := run(t, "list", "--lang", "zh-CN")
	for _, want := range []string{"补丁 ID", "使用这个 nvcc 接受的较旧 MSVC 工具集", "自动", "遇到 ", "详情：llamactl patches show ID"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("list: exit %d, no %q in\n%s", code, want, out)
		}
	}
	out, _, code = run(t, "show", "msvc-stl-cuda", "--lang", "zh-CN")
	for _, want := range []string{"msvc-stl-cuda: 使用这个 nvcc 接受的较旧 MSVC 工具集", "MSVC 工具集 14.40 及更新版本", "应用方式：", "适用条件：", "改动：", "选择已安装的、低于 14.40 的最新 MSVC 工具集", "否则（仅在使用 --allow-unsupported-compiler 时）：", "来源："} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("show: exit %d, no %q in\n%s", code, want, out)
		}
	}
	f, _, _ := cmdutil.NewTest(nil, nil)
	o, err := newOptions(f, "zh-CN", "nope")
	if err != nil {
		t.Fatal(err)
	}
	if err := showRun(o); cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), `没有名为 "nope" 的补丁`) || !strings.Contains(err.Error(), "llamactl patches list") {
		t.Errorf("unknown patch: %v", err)
	}
	if _, err := newOptions(f, "tlh", ""); cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Errorf("bad --lang: %v", err)
	}
	for _, args := range [][]string{{"list"}, {"show", "cuda-stream-t"}} {
		en, _, _ := run(t, append(args, "--json")...)
		zh, _, _ := run(t, append(args, "--json", "--lang", "zh-CN")...)
		if en != zh || en == "" {
			t.Errorf("%v --json differs with --lang zh-CN", args)
		}
	}
}
