package rpccmd

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
)

// data/text.zh-CN.json translates every sentence rpc serve prints.
func TestZhCNTexts(t *testing.T) {
	testutil.CheckTextFiles(t, textEN, textZhCN)
}

// serveCmd runs `llamactl rpc args...` against an engine folder holding a
// worker whose run r replays; it returns stdout, stderr and the error.
// "--json" (the root command's flag) sets the factory's JSON output.
func serveCmd(t *testing.T, env map[string]string, r *proc.Replay, args ...string) (string, string, error) {
	t.Helper()
	f, out, errOut := cmdutil.NewTest(env, r)
	var rest []string
	for _, a := range args {
		if a == "--json" {
			f.IO.JSON = true
			continue
		}
		rest = append(rest, a)
	}
	cmd := NewCmd(f)
	cmd.SetArgs(rest)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

// rpc serve --lang zh-CN (or a Chinese locale): the warnings, the started
// line and the worker's failure are Chinese, the endpoint, the worker's
// name and the command stay; --json is the same English document whatever
// the language; a bad --port is a Chinese usage error.
func TestServeInChinese(t *testing.T) {
	dir := t.TempDir()
	name := WorkerNames[0]
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	worker := filepath.Join(dir, name)
	if err := os.WriteFile(worker, []byte("worker"), 0o755); err != nil {
		t.Fatal(err)
	}
	// the worker cannot bind (port taken): it exits 1
	r := func() *proc.Replay {
		return &proc.Replay{Commands: map[string]proc.Recording{
			worker + " -H 0.0.0.0 -p 50052": {ExitCode: 1, Stderr: "Failed to bind\n"},
		}}
	}
	for _, c := range []struct {
		env  map[string]string
		args []string
	}{
		{nil, []string{"serve", "--lang", "zh-CN", "--host", "0.0.0.0", "--engine", dir}},
		{map[string]string{"LANG": "zh_CN.UTF-8"}, []string{"serve", "--host", "0.0.0.0", "--engine", dir}},
	} {
		_, stderr, err := serveCmd(t, c.env, r(), c.args...)
		if cmdutil.ExitCode(err) != cmdutil.ExitEngine {
			t.Fatalf("%v: exit %d (%v)", c.args, cmdutil.ExitCode(err), err)
		}
		for _, want := range []string{"RPC 协议没有身份验证", "正在监听 0.0.0.0，而不是回环地址", "正在 0.0.0.0:50052 上运行（按 Ctrl-C 停止）", "llamactl run MODEL --rpc 0.0.0.0:50052"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: output lacks %q:\n%s", c.args, want, stderr)
			}
		}
		for _, l := range strings.Split(stderr, "\n") {
			if l == "Failed to bind" {
				continue // the worker's own output
			}
			if w := testutil.EnglishLeft(l); w != "" {
				t.Errorf("English left (%q): %s", w, l)
			}
		}
		if !strings.Contains(err.Error(), "已退出，退出码为 1（端口 50052 是否已被占用") {
			t.Errorf("error not Chinese: %v", err)
		}
	}
	en, _, err1 := serveCmd(t, nil, r(), "serve", "--json", "--host", "0.0.0.0", "--engine", dir)
	zh, _, err2 := serveCmd(t, nil, r(), "serve", "--json", "--lang", "zh-CN", "--host", "0.0.0.0", "--engine", dir)
	if err1 == nil || err2 == nil || en != zh || !strings.Contains(en, "unauthenticated") || !strings.Contains(en, "not on loopback") {
		t.Errorf("--json differs with --lang zh-CN (%v, %v):\n%s\n%s", err1, err2, en, zh)
	}
	_, _, err := serveCmd(t, nil, r(), "serve", "--lang", "zh-CN", "--port", "0")
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--port 0 不是有效的 TCP 端口") {
		t.Errorf("usage error: %v", err)
	}
}

// No worker next to the engine nor on PATH: the error names the fix, in
// the chosen language.
func TestNoWorkerInChinese(t *testing.T) {
	dir := t.TempDir()
	_, _, err := serveCmd(t, nil, &proc.Replay{}, "serve", "--lang", "zh-CN", "--engine", dir)
	if cmdutil.ExitCode(err) != cmdutil.ExitEngine || !strings.Contains(err.Error(), "都没有 llama.cpp RPC worker") || !strings.Contains(err.Error(), "llamactl build --rpc --out DIR") {
		t.Errorf("zh-CN: %v", err)
	}
	_, _, err = serveCmd(t, nil, &proc.Replay{}, "serve", "--engine", dir)
	if !strings.Contains(err.Error(), "no llama.cpp RPC worker") {
		t.Errorf("en: %v", err)
	}
}
