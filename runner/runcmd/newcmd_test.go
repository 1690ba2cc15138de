package runcmd

import (
	"reflect"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
)

// The model, flags and engine flags after -- land in Options; nothing runs.
func TestNewCmdOptions(t *testing.T) {
	f, _, _ := cmdutil.NewTest(nil, nil)
	var got *Options
	cmd := NewCmd(f, func(o *Options) error { got = o; return nil })
	cmd.SetArgs([]string{"model.gguf", "--dry-run", "--ngl", "20", "--", "--jinja"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Model != "model.gguf" || !got.DryRun || got.NGL != 20 || !reflect.DeepEqual(got.Extra, []string{"--jinja"}) {
		t.Errorf("options = %+v", got)
	}
	// Validation stays in RunE: two models is a usage error before runF.
	cmd = NewCmd(f, func(*Options) error { t.Error("runF ran"); return nil })
	cmd.SetArgs([]string{"a.gguf", "b.gguf"})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.Execute(); cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Errorf("two models: %v", err)
	}
}
