package runcmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
)

func TestGGUFCommand(t *testing.T) {
	model := genModel(t, t.TempDir(), ggufwrite.Config{Arch: "qwen3moe"})
	f, out, _ := cmdutil.NewTest(nil, &proc.Replay{})
	cmd := NewCmdGGUF(f)
	cmd.SetArgs([]string{model})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"qwen3moe", "layers", "experts", "8, 2 used per token", "vocabulary", "llama, 1024 tokens", "quant mix", "F16"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	f, out, _ = cmdutil.NewTest(nil, &proc.Replay{})
	f.IO.JSON = true
	cmd = NewCmdGGUF(f)
	cmd.SetArgs([]string{model})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	var d GGUFDoc
	if err := json.Unmarshal([]byte(out.String()), &d); err != nil || d.Schema != 1 || d.Model.Layers != 4 || d.Model.ExpertCount != 8 || d.Tensors != 51 {
		t.Errorf("json: %v %+v", err, d)
	}
	f, _, _ = cmdutil.NewTest(nil, &proc.Replay{})
	cmd = NewCmdGGUF(f)
	cmd.SetArgs([]string{"/nonexistent.gguf"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.Execute(); cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Errorf("missing file: %v", err)
	}
}

func TestRunCommandArgs(t *testing.T) {
	model := genModel(t, t.TempDir(), ggufwrite.Config{Arch: "llama"})
	f, out, _ := cmdutil.NewTest(nil, &proc.Replay{Commands: recordedEngine(t, false)})
	f.IO.JSON = true
	cmd := NewCmd(f)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetArgs([]string{model, "--engine", "/nonexistent/dir", "--dry-run"})
	if err := cmd.Execute(); cmdutil.ExitCode(err) != cmdutil.ExitEngine {
		t.Errorf("bad --engine: %v", err)
	}
	cmd = NewCmd(f)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetArgs([]string{model, "other.gguf"})
	if err := cmd.Execute(); cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "after --") {
		t.Errorf("two models: %v", err)
	}
	_ = out
}

// A folder instead of a model: exit 2, and the message says which file to pass.
func TestOpenModelFolder(t *testing.T) {
	_, _, err := openModel(texts(""), t.TempDir())
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "is a folder") || !strings.Contains(err.Error(), ".gguf model file in it") {
		t.Errorf("err = %v", err)
	}
}

// A model's name is printed as text, never as terminal codes.
func TestGGUFCommandEscapesMetadata(t *testing.T) {
	model := genModel(t, t.TempDir(), ggufwrite.Config{Arch: "llama", Name: "evil\x1b[2J\x1b]0;owned\x07name"})
	f, out, _ := cmdutil.NewTest(nil, &proc.Replay{})
	cmd := NewCmdGGUF(f)
	cmd.SetArgs([]string{model})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out.String(), "\x1b\x07") || !strings.Contains(out.String(), `evil\x1b[2J`) {
		t.Errorf("escape codes printed raw or the name lost:\n%q", out)
	}
}

// gguf's flags reach its Options checked: the model, --lang and the
// catalog it chose (English under --json).
func TestGGUFOptions(t *testing.T) {
	f, _, _ := cmdutil.NewTest(map[string]string{}, &proc.Replay{})
	var got *GGUFOptions
	cmd := NewCmdGGUF(f, func(o *GGUFOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"m.gguf", "--lang", "zh-CN"})
	if err := cmd.Execute(); err != nil || got == nil {
		t.Fatalf("err = %v, options = %v", err, got)
	}
	if got.Model != "m.gguf" || got.Lang != "zh-CN" || got.t.Lang() != "zh-CN" || got.F != f {
		t.Errorf("options = %+v (catalog %s)", got, got.t.Lang())
	}
	f.IO.JSON = true
	cmd = NewCmdGGUF(f, func(o *GGUFOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"m.gguf", "--lang", "zh-CN"})
	if err := cmd.Execute(); err != nil || got.t.Lang() != "en" {
		t.Errorf("--json: err = %v, catalog %s", err, got.t.Lang())
	}
}

// A bad flag exits 2 before anything runs (a wrong number of models and an
// unknown flag are the root's usage errors, internal/cli's contract tests).
func TestGGUFBadFlags(t *testing.T) {
	for _, args := range [][]string{{"m.gguf", "--lang", "xx"}, {"m.gguf", "--lang", "klingon"}} {
		f, _, _ := cmdutil.NewTest(map[string]string{}, &proc.Replay{})
		cmd := NewCmdGGUF(f, func(*GGUFOptions) error { t.Errorf("%q: runF ran", args); return nil })
		cmd.SetArgs(args)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		if err := cmd.Execute(); cmdutil.ExitCode(err) != cmdutil.ExitUsage {
			t.Errorf("%q: exit %d (%v)", args, cmdutil.ExitCode(err), err)
		}
	}
}
