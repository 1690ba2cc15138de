package buildcmd

import (
	"reflect"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
)

// The flags land in Options; nothing runs (runF replaces the run function).
func TestNewCmdOptions(t *testing.T) {
	f, _, _ := cmdutil.NewTest(nil, nil)
	var got *Options
	cmd := NewCmd(f, func(o *Options) error { got = o; return nil })
	cmd.SetArgs([]string{"--backend", "vulkan", "--dry-run", "--cmake-arg", "GGML_AVX2=OFF", "-j", "3", "--out", "dist"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Backend != "vulkan" || !got.DryRun || got.Jobs != 3 || got.OutDir != "dist" ||
		!reflect.DeepEqual(got.CMakeArgs, []string{"GGML_AVX2=OFF"}) {
		t.Errorf("options = %+v", got)
	}
}
