package buildcmd

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/build"
	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/testutil"
)

// data/text.zh-CN.json translates every sentence build prints itself.
func TestZhCNTexts(t *testing.T) {
	en, zh := testutil.CheckTextFiles(t, textEN, textZhCN)
	testutil.CheckLines(t, en, zh, texts(lang.ZhCN).Line, nil)
}

// buildCLI runs the command with its flags (--json is the root's: json).
func buildCLI(t *testing.T, env map[string]string, json bool, args ...string) (int, string, string) {
	t.Helper()
	f, out, errOut := cmdutil.NewTest(env, nil)
	f.IO.JSON = json
	cmd := NewCmd(f)
	cmd.SetArgs(append([]string{"--snapshot", filepath.Join(plans, "win-vs2022-17.10-cuda12.3-older-toolset.json"), "--backend", "cuda"}, args...))
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.Execute()
	if err != nil {
		errOut.WriteString(err.Error())
	}
	return cmdutil.ExitCode(err), out.String(), errOut.String()
}

// build --dry-run --lang zh-CN prints the plan in Chinese: headings, the
// planner's reasons and doctor's, and build's own sentences; options,
// commands and scripts stay as they are.
func TestDryRunInChinese(t *testing.T) {
	for _, env := range []map[string]string{nil, {"LLAMACTL_LANG": "zh-CN"}} {
		args := []string{"--dry-run"}
		if env == nil {
			args = append(args, "--lang", "zh-CN")
		}
		code, out, errOut := buildCLI(t, env, false, args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, want := range []string{
			"计划：llama.cpp b9591（构建号 9591，提交 e95dae18d），后端 cuda，windows，生成器 Ninja",
			"原因：\n", "  - 后端 cuda 由 --backend 指定\n", "  - MSVC 环境来自 Visual Studio Community 2022（17.10.2）\n",
			"CMake 选项：\n  -DCMAKE_BUILD_TYPE=Release\n", "第一次真正构建时，源码会从 ",
			"-DCMAKE_CUDA_ARCHITECTURES=89-real",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: no %q in\n%s", env, want, out)
			}
		}
		// Every reason is Chinese, doctor's selection reasons included.
		why := out[strings.Index(out, "原因：\n"):]
		why = why[:strings.Index(why, "\n\n")]
		for _, l := range strings.Split(why, "\n")[1:] {
			if w := testutil.EnglishLeft(l); w != "" || !strings.HasPrefix(l, "  - ") {
				t.Errorf("reason not Chinese (%q): %s", w, l)
			}
		}
	}
}

// --json is the same bytes whatever the language.
func TestJSONStaysEnglish(t *testing.T) {
	_, en, _ := buildCLI(t, nil, true, "--dry-run")
	_, zh, _ := buildCLI(t, map[string]string{"LANG": "zh_CN.UTF-8"}, true, "--dry-run", "--lang", "zh-CN")
	if en != zh || !strings.Contains(en, `"reasons"`) {
		t.Errorf("--json differs with --lang zh-CN:\n%s\n%s", en, zh)
	}
}

// Usage errors are Chinese with the same flags and next command; a bad
// --lang is a usage error that shows the flag's use.
func TestUsageErrorsInChinese(t *testing.T) {
	o, _, _ := newOpts(t, nil, nil)
	o.Lang, o.Check = "zh-CN", true
	err := execute(context.Background(), o)
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || err.Error() != "--check 需要 --lock FILE（用来检查本机的锁文件）" {
		t.Errorf("--check without --lock: %v", err)
	}
	o, _, _ = newOpts(t, nil, nil)
	o.Lang, o.LockPath = "zh-CN", filepath.Join(t.TempDir(), "missing.toml")
	if err := execute(context.Background(), o); err == nil || !strings.Contains(err.Error(), "文件不存在") || !strings.Contains(err.Error(), "llamactl build --lock "+o.LockPath+" --check") {
		t.Errorf("missing lock: %v", err)
	}
	o, _, _ = newOpts(t, nil, nil)
	o.Lang = "klingon"
	if err := execute(context.Background(), o); cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "llamactl build --dry-run --lang zh-CN") {
		t.Errorf("bad --lang: %v", err)
	}
}

// A build failure whose message is one of the plan's (a missing RPC
// worker after a --rpc build) is shown in Chinese; --json's English is
// kept with a nil translator.
func TestExitErrorInChinese(t *testing.T) {
	msg := plan.Message("verify-no-rpc-worker", "ggml-rpc-server or rpc-server", "/b/bin", "/b/build.log").Text
	err := &build.Error{Kind: build.Failed, Message: msg}
	zh := exitError(err, plan.NewTranslator(lang.ZhCN))
	if cmdutil.ExitCode(zh) != cmdutil.ExitBuild || zh.Error() != "构建设置了 GGML_RPC=ON，但 /b/bin 中没有 RPC worker（ggml-rpc-server or rpc-server）；请查看 /b/build.log" {
		t.Errorf("zh-CN: %v", zh)
	}
	if en := exitError(err, nil); en.Error() != msg || !strings.HasPrefix(msg, "the build has GGML_RPC=ON but no RPC worker") {
		t.Errorf("en: %v", en)
	}
}

// verify's detail joins its notes with "; ", and a note may hold "; "
// itself: each note is translated whole.
func TestVerifyDetailInChinese(t *testing.T) {
	d := plan.Message("verify-rpc-worker", "ggml-rpc-server").Text + "; " + plan.Message("verify-device-env", "vulkan", "GGML_VK_VISIBLE_DEVICES=0").Text
	got := detailLine(plan.NewTranslator(lang.ZhCN), d)
	want := "已构建 RPC worker ggml-rpc-server；构建中有 vulkan 后端；vulkan 设备只有设置 GGML_VK_VISIBLE_DEVICES=0 后才能在这里使用（软件设备：除非被选中，ggml-vulkan 会跳过 CPU 类型的设备）"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if en := detailLine(plan.NewTranslator(lang.EN), d); en != d {
		t.Errorf("English: %q", en)
	}
	if got := detailLine(plan.NewTranslator(lang.ZhCN), "not a message; either"); got != "not a message；either" {
		t.Errorf("other detail: %q", got)
	}
}
