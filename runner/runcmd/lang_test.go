package runcmd

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
)

// data/text.zh-CN.json translates every sentence run and gguf print.
func TestZhCNTexts(t *testing.T) {
	testutil.CheckTextFiles(t, textEN, textZhCN)
}

// run --dry-run --lang zh-CN: heading, the plan's reasons (filled in
// English, translated back), the table, runner-ups and the labels are
// Chinese; flags, device names and the command are not translated; --json
// is the same bytes whatever the language.
func TestDryRunInChinese(t *testing.T) {
	model := genModel(t, t.TempDir(), ggufwrite.Config{Arch: "qwen3moe"})
	run := func(env map[string]string, l string, json bool) (string, error) {
		r := &proc.Replay{Commands: recordedEngine(t, true)}
		o, out, _ := testOptions(t, r)
		o.F.Getenv = func(k string) string { return env[k] }
		o.F.IO.JSON = json
		statFor(o)
		o.Model, o.DryRun, o.Lang = model, true, l
		err := Run(context.Background(), o)
		return out.String(), err
	}
	for _, c := range []struct {
		env  map[string]string
		lang string
	}{{nil, "zh-CN"}, {map[string]string{"LC_ALL": "zh_CN.UTF-8"}, ""}} {
		s, err := run(c.env, c.lang, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"（qwen3moe，4 层，", "-ngl 5", "全部 5 层（4 个块 + 输出层）都在 GPU 上", "上下文 4096：模型训练时的长度",
			"预测 MiB", "主机", "CUDA0", "备选方案：", "放得下，但", "引擎：/engine/llama-server", "命令：llama-server -m "} {
			if !strings.Contains(s, want) {
				t.Errorf("%v: output lacks %q:\n%s", c, want, s)
			}
		}
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "命令：") || strings.Contains(l, "引擎：") {
				continue
			}
			if w := testutil.EnglishLeft(l); w != "" {
				t.Errorf("English left (%q): %s", w, l)
			}
		}
	}
	en, err1 := run(nil, "", true)
	zh, err2 := run(map[string]string{"LANG": "zh_CN.UTF-8"}, "zh-CN", true)
	if err1 != nil || err2 != nil || en != zh || !strings.Contains(en, `"reasons"`) {
		t.Errorf("--json differs with --lang zh-CN (%v, %v):\n%s\n%s", err1, err2, en, zh)
	}
}

// Usage errors and an engine failure explained by the knowledge base are
// Chinese; a bad --lang is a usage error.
func TestErrorsInChinese(t *testing.T) {
	model := genModel(t, t.TempDir(), ggufwrite.Config{Arch: "llama"})
	f, _, _ := cmdutil.NewTest(nil, nil)
	cmd := NewCmd(f, func(*Options) error { t.Error("runF ran"); return nil })
	cmd.SetArgs([]string{model, "--lang", "zh-CN", "--ngl", "-5"})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.Execute(); cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--ngl -5 不是有效的层数") {
		t.Errorf("--ngl -5: %v", err)
	}
	o, _, _ := testOptions(t, &proc.Replay{})
	o.Model, o.Lang = "/nonexistent/model.gguf", "zh-CN"
	if err := Run(context.Background(), o); cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "/nonexistent/model.gguf 不存在") {
		t.Errorf("missing model: %v", err)
	}
	o, _, _ = testOptions(t, &proc.Replay{})
	o.Model, o.Lang = model, "xx"
	if err := Run(context.Background(), o); cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--lang zh-CN") {
		t.Errorf("bad --lang: %v", err)
	}

	r := &exitingEngine{Replay: proc.Replay{Commands: recordedEngine(t, false)}, log: "error: invalid argument: --draft-max\n"}
	o, _, _ = testOptions(t, r)
	statFor(o)
	o.HTTP = &fakeHTTP{}
	o.Model, o.Prompt, o.Lang = model, "hi", "zh-CN"
	err := Run(context.Background(), o)
	if cmdutil.ExitCode(err) != cmdutil.ExitEngine || !strings.Contains(err.Error(), "原因：") || !strings.Contains(err.Error(), "修复：") {
		t.Errorf("engine failure: %v", err)
	}
}

// gguf --lang zh-CN labels the model's facts in Chinese.
func TestGGUFInChinese(t *testing.T) {
	model := genModel(t, t.TempDir(), ggufwrite.Config{Arch: "qwen3moe"})
	f, out, _ := cmdutil.NewTest(map[string]string{}, nil)
	cmd := NewCmdGGUF(f)
	cmd.SetArgs([]string{model, "--lang", "zh-CN"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"架构", "qwen3moe", "层数", "每层", "（留在 CPU 上）", "上下文（训练时）", "专家", "每个 token 使用", "词表", "量化组成"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("gguf output lacks %q:\n%s", want, out)
		}
	}
}

// The real engine, in Chinese: a prompt's answer line and the memory
// table (--verbose) are Chinese.
func TestIntegrationRunInChinese(t *testing.T) {
	dir := engineDir(t)
	model := genModel(t, t.TempDir(), ggufwrite.Config{Arch: "llama"})
	o, out := realOptions(t, dir, model)
	errOut := &strings.Builder{}
	o.F.IO.JSON, o.F.IO.Verbose, o.F.IO.ErrOut = false, true, errOut
	o.Prompt, o.NPredict, o.Lang = "Hello world", 4, "zh-CN"
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "4 个 token，") || !strings.Contains(errOut.String(), "内存：预测值 / 引擎报告值（MiB）") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
}
