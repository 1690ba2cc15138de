package probecmd

import (
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
)

// The flags land in Options; nothing runs (runF replaces the run function).
func TestNewCmdOptions(t *testing.T) {
	f, _, _ := cmdutil.NewTest(nil, nil)
	var got *Options
	cmd := NewCmd(f, func(o *Options) error { got = o; return nil })
	cmd.SetArgs([]string{"--only", "cuda", "--arch", "89-real", "--ccbin", "/usr/bin/g++-11"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Only != "cuda" || got.Overrides.Arch != "89-real" || got.Overrides.CCBin != "/usr/bin/g++-11" {
		t.Errorf("options = %+v", got)
	}
}
