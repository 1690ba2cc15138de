package runcmd

import (
	"reflect"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
)

// captured runs `llamactl run ARGS` with a runF that only keeps the
// Options: nothing is read, probed or started.
func captured(t *testing.T, args ...string) (*Options, error) {
	t.Helper()
	f, _, _ := cmdutil.NewTest(nil, nil)
	var got *Options
	cmd := NewCmd(f, func(o *Options) error { got = o; return nil })
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	if err != nil && got != nil {
		t.Errorf("%q: runF ran although RunE failed: %v", args, err)
	}
	return got, err
}

// The model, flags and engine flags after -- land in Options as given;
// nothing runs.
func TestNewCmdOptions(t *testing.T) {
	cases := []struct {
		args  []string
		check func(o *Options) bool
	}{
		{[]string{"model.gguf", "--dry-run", "--ngl", "20", "--", "--jinja"}, func(o *Options) bool {
			return o.Model == "model.gguf" && o.DryRun && o.NGL == 20 && reflect.DeepEqual(o.Extra, []string{"--jinja"})
		}},
		{[]string{"m.gguf"}, func(o *Options) bool { // the defaults
			return o.NGL == -1 && o.Host == "127.0.0.1" && o.Port == 0 && o.NPredict == 64 && o.Extra == nil && !o.DryRun && o.RPC == nil
		}},
		{[]string{"m.gguf", "--ctx", "32768", "--cache-type", "q8_0", "--flash-attn", "off", "--batch", "1024", "--ubatch", "256", "--threads", "6"}, func(o *Options) bool {
			return o.Ctx == 32768 && o.CacheType == "q8_0" && o.FlashAttn == "off" && o.Batch == 1024 && o.UBatch == 256 && o.Threads == 6
		}},
		{[]string{"m.gguf", "--server", "--host", "0.0.0.0", "--port", "8080", "--no-mmap", "--retune", "--engine", "/opt/llama"}, func(o *Options) bool {
			return o.Server && o.Host == "0.0.0.0" && o.Port == 8080 && o.NoMmap && o.Retune && o.EnginePath == "/opt/llama"
		}},
		{[]string{"m.gguf", "--draft", "d.gguf", "--draft-max", "8", "--prompt", "hi", "--n-predict", "16", "--rpc", "10.0.0.2:50052,[::1]:50053"}, func(o *Options) bool {
			return o.Draft == "d.gguf" && o.DraftMax == 8 && o.Prompt == "hi" && o.NPredict == 16 && reflect.DeepEqual(o.RPC, []string{"10.0.0.2:50052", "[::1]:50053"})
		}},
		{[]string{"m.gguf", "--lang", "zh-CN", "--ngl", "-1"}, func(o *Options) bool {
			return o.Lang == "zh-CN" && o.t.Lang() == "zh-CN" && o.NGL == -1
		}},
	}
	for _, c := range cases {
		o, err := captured(t, c.args...)
		if err != nil || o == nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if !c.check(o) {
			t.Errorf("%q: options = %+v", c.args, o)
		}
	}
}

// Bad flags and their bad combinations are usage errors (exit 2) in RunE,
// before runF: the model is never read (it does not exist here).
func TestNewCmdRejectsBadFlags(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"a.gguf", "b.gguf"}, "one model"},
		{[]string{"a.gguf", "b.gguf", "--", "--jinja"}, "after --"},
		{[]string{"m.gguf", "--flash-attn", "maybe"}, "--flash-attn"},
		{[]string{"m.gguf", "--cache-type", "q3"}, "--cache-type"},
		{[]string{"m.gguf", "--threads", "-3"}, "--threads -3 is negative"},
		{[]string{"m.gguf", "--batch", "-1"}, "--batch -1 is negative"},
		{[]string{"m.gguf", "--ubatch", "-8"}, "--ubatch -8 is negative"},
		{[]string{"m.gguf", "--ngl", "-2"}, "--ngl -2"},
		{[]string{"m.gguf", "--batch", "256", "--ubatch", "512"}, "--ubatch 512 is larger than --batch 256"},
		{[]string{"m.gguf", "--ctx", "18446744073709551615"}, "--ctx 18446744073709551615 is larger than llama.cpp accepts"},
		{[]string{"m.gguf", "--port", "70000"}, "70000"},
		{[]string{"m.gguf", "--rpc", "10.0.0.2"}, "10.0.0.2"},
		{[]string{"m.gguf", "--lang", "xx"}, "--lang zh-CN"},
	}
	for _, c := range cases {
		o, err := captured(t, c.args...)
		if o != nil || cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: runF ran %v, err = %v (exit %d); want exit 2 and %q", c.args, o != nil, err, cmdutil.ExitCode(err), c.want)
		}
	}
}
