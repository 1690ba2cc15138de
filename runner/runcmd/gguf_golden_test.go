package runcmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
)

// gguf's output, byte for byte, for models that reach every row: a MoE
// model, a sliding-window model with a tied output, an embedding model;
// human (plain, --verbose, zh-CN) and --json. The model's temporary path
// is written as MODEL.
func TestGoldenGGUF(t *testing.T) {
	models := map[string]ggufwrite.Config{
		"moe":   {Arch: "qwen3moe"},
		"swa":   {Arch: "gemma3", Type: "Q8_0"},
		"embed": {Arch: "llama", Pooling: 1},
	}
	modes := []struct {
		name          string
		json, verbose bool
		args          []string
	}{
		{"txt", false, false, nil},
		{"verbose.txt", false, true, nil},
		{"zh.txt", false, false, []string{"--lang", "zh-CN"}},
		{"json", true, false, nil},
	}
	for name, cfg := range models {
		model := genModel(t, t.TempDir(), cfg)
		for _, m := range modes {
			f, out, errOut := cmdutil.NewTest(map[string]string{}, &proc.Replay{})
			f.IO.JSON, f.IO.Verbose = m.json, m.verbose
			cmd := NewCmdGGUF(f)
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			cmd.SetArgs(append([]string{model}, m.args...))
			code := cmdutil.ExitCode(cmd.Execute())
			got := fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, out, errOut)
			// --json escapes a Windows path's backslashes.
			got = strings.ReplaceAll(got, strings.ReplaceAll(model, `\`, `\\`), "MODEL")
			golden(t, "gguf-"+name+"."+m.name, strings.ReplaceAll(got, model, "MODEL"))
		}
	}
}
