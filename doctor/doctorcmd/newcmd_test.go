package doctorcmd_test

import (
	"reflect"
	"testing"

	"github.com/llamactl/llamactl/doctor/doctorcmd"
	"github.com/llamactl/llamactl/internal/cmdutil"
)

// The flags land in Options; nothing runs (runF replaces the run function).
func TestNewCmdOptions(t *testing.T) {
	f, _, _ := cmdutil.NewTest(nil, nil)
	var got *doctorcmd.Options
	cmd := doctorcmd.NewCmd(f, func(o *doctorcmd.Options) error { got = o; return nil })
	cmd.SetArgs([]string{"--replay", "m.json", "--backend", "opencl", "--check", "cuda.select", "--check", "host.os", "--probe"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Replay != "m.json" || got.Backend != "opencl" || !got.Probe || !got.CheckGiven ||
		!reflect.DeepEqual(got.Checks, []string{"cuda.select", "host.os"}) || got.F != f {
		t.Errorf("options = %+v", got)
	}
}
