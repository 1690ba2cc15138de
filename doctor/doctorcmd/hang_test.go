package doctorcmd

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil/faketool"
	"github.com/llamactl/llamactl/machine"
)

// Tools that hang or print garbage (real processes, through the real
// runner) give findings in bounded time, never a stuck or crashed doctor.
func TestHangingAndGarbageTools(t *testing.T) {
	dir := t.TempDir()
	noise := make([]byte, 4096)
	for i := range noise {
		noise[i] = byte(i*7919 + i/13)
	}
	faketool.Install(t, dir, "cmake", faketool.Spec{Stdout: []byte("\377\376cmake \300\300 version ???\n")})           // non-UTF-8 garbage
	faketool.Install(t, dir, "ninja", faketool.Spec{Hang: true})                                                       // hangs
	faketool.Install(t, dir, "git", faketool.Spec{Stdout: noise, Exit: 3})                                             // binary noise, failure
	faketool.Install(t, dir, "clinfo", faketool.Spec{Stdout: []byte("Number of platforms 1\n  Platform Name \377\n")}) // truncated, invalid
	env := map[string]string{"PATH": dir, "HOME": dir, "LANG": "C"}
	if runtime.GOOS == "windows" {
		env["USERPROFILE"], env["SystemRoot"] = dir, os.Getenv("SystemRoot")
	}
	f, out, _ := cmdutil.NewTest(env, proc.Exec{})
	f.IO.JSON = true
	o := &Options{F: f, Gather: func(ctx context.Context) *machine.Snapshot {
		d := probe.System(f.Env())
		d.CommandTimeout = 300 * time.Millisecond
		d.Timeout = 2 * time.Second
		return probe.Gather(ctx, d)
	}}
	start := time.Now()
	err := validateAndRun(context.Background(), o)
	// The hanging tool sleeps 30s; finishing well before that proves it was
	// cut off. The bound is loose on purpose: on a loaded 2-core machine
	// the 2s probe budget plus process start-up took 5.5s, and a tight
	// bound made this a timing test that failed for no bug.
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("doctor took %s with a tool that hangs for 30s: the probe deadline did not cut it off", el)
	}
	if code := cmdutil.ExitCode(err); code > cmdutil.ExitFindings {
		t.Fatalf("exit %d: %v", code, err)
	}
	var d Doc
	if err := json.Unmarshal([]byte(out.String()), &d); err != nil {
		t.Fatalf("no JSON document: %v", err)
	}
	got := map[string]string{}
	for _, c := range d.Checks {
		got[c.Message] = c.Summary
	}
	for m, s := range got {
		if strings.HasPrefix(m, "build.") || strings.HasPrefix(m, "meta.") || strings.HasPrefix(m, "ocl.") {
			t.Logf("%s: %s", m, s)
		}
	}
	for _, m := range []string{"build.ninja/unknown-version", "build.cmake/unknown-version", "build.git/unknown-version"} {
		if _, ok := got[m]; !ok {
			t.Errorf("no %s finding", m)
		}
	}
	if _, ok := got["meta.probe-errors/timed-out"]; !ok {
		t.Errorf("the hanging ninja is not reported: %v", keys(got))
	}
	for m, s := range got {
		if strings.HasPrefix(s, "internal") {
			t.Errorf("%s: %s", m, s)
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
