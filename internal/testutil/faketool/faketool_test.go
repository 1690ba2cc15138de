package faketool

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	Main()
	os.Exit(m.Run())
}

func run(t *testing.T, timeout time.Duration, p string, args ...string) (stdout, stderr []byte, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.Bytes(), e.Bytes(), err
}

func TestStandInPrintsBytesAndExitStatus(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.txt")
	if err := os.WriteFile(rec, []byte("# recorded on a test machine\n# ---\nrelease 12.4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Install(t, dir, "nvcc", Spec{
		Stdout: []byte("\xff\xfegarbage\n"), Stderr: []byte("warn\n"), Exit: 3,
		Args: map[string]*Spec{"--version": {StdoutFile: "rec.txt"}},
	})
	if runtime.GOOS == "windows" && filepath.Ext(p) != ".exe" {
		t.Errorf("stand-in %s has no .exe", p)
	}
	out, errOut, err := run(t, time.Minute, p, "-x")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || string(out) != "\xff\xfegarbage\n" || string(errOut) != "warn\n" {
		t.Errorf("stdout %q stderr %q err %v", out, errOut, err)
	}
	out, _, err = run(t, time.Minute, p, "--version")
	if err != nil || string(out) != "release 12.4\n" {
		t.Errorf("--version: stdout %q err %v", out, err)
	}
}

func TestStandInHangsAndCrashes(t *testing.T) {
	dir := t.TempDir()
	hang := Install(t, dir, "hang", Spec{Stdout: []byte("started\n"), Hang: true})
	start := time.Now()
	out, _, err := run(t, 2*time.Second, hang)
	if err == nil || string(out) != "started\n" {
		t.Errorf("hang: stdout %q err %v", out, err)
	}
	if el := time.Since(start); el > 50*time.Second {
		t.Errorf("the hanging stand-in was not killed: %s", el)
	}
	crash := Install(t, dir, "crash", Spec{Crash: true})
	_, _, err = run(t, time.Minute, crash)
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("crash: err %v", err)
	}
	if runtime.GOOS == "windows" {
		if uint32(ee.ExitCode()) != statusAccessViolation {
			t.Errorf("crash: exit status %#x, want 0xC0000005", uint32(ee.ExitCode()))
		}
	} else if ee.ExitCode() != -1 { // killed by a signal
		t.Errorf("crash: exit %d, want death by signal", ee.ExitCode())
	}
}

// A stand-in compiler: "-c" writes an empty object, a link writes a
// program (itself a stand-in) at -o.
func TestStandInWritesItsOutput(t *testing.T) {
	dir := t.TempDir()
	cc := Install(t, dir, "cc", Spec{
		OutFlag: "-o", OutSpec: &Spec{Stdout: []byte("linked\n")},
		Cases: []Case{{Arg: "-c", Spec: Spec{OutFlag: "-o"}}},
	})
	obj, prog := filepath.Join(dir, "a.o"), filepath.Join(dir, "a")
	if _, _, err := run(t, time.Minute, cc, "-c", "a.c", "-o", obj); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(obj); err != nil || len(b) != 0 {
		t.Errorf("object: %v %q", err, b)
	}
	if _, _, err := run(t, time.Minute, cc, obj, "-o", prog); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "windows" {
		prog += ".exe"
	}
	if out, _, err := run(t, time.Minute, prog); err != nil || string(out) != "linked\n" {
		t.Errorf("linked program: %q %v", out, err)
	}
}
