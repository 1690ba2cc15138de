package cmdutil

import (
	"errors"
	"fmt"
	"testing"
)

func TestExitCodeMapping(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{Exit(ExitFindings), ExitFindings},
		{UsageErrorf("bad flag %s", "--x"), ExitUsage},
		{fmt.Errorf("wrapped: %w", Errorf(ExitBuild, "ninja failed")), ExitBuild},
		{errors.New("surprise"), ExitInternal},
	}
	for _, c := range cases {
		if got := ExitCode(c.err); got != c.want {
			t.Errorf("ExitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	if e := UsageErrorf("model %q is not GGUF", "x.bin"); e.Error() != `model "x.bin" is not GGUF` {
		t.Errorf("message lost: %q", e.Error())
	}
}

func TestNewTestFactoryIsIsolated(t *testing.T) {
	f, out, _ := NewTest(map[string]string{"CUDA_PATH": `C:\CUDA\v12.4`}, nil)
	if f.Getenv("CUDA_PATH") != `C:\CUDA\v12.4` || f.Getenv("HOME") != "" {
		t.Fatal("test env leaks the real environment")
	}
	if f.IO.Color() {
		t.Fatal("test streams must be plain")
	}
	fmt.Fprint(f.IO.Out, "x")
	if out.String() != "x" {
		t.Fatal("stdout not captured")
	}
}
