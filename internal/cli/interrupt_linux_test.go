package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
)

// hungTools writes tools that hang, each with a grandchild, as a broken
// toolchain does (nvcc waiting on a license server, a wedged cmake).
func hungTools(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"nvcc", "cmake", "ninja", "git", "gcc", "g++", "cc", "c++", "clinfo", "nvidia-smi", "vulkaninfo", "hipcc", "ccache", "glslc", "ldconfig", "dpkg", "rocminfo"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\nsleep 300 &\nsleep 300\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// marked counts the processes whose environment holds marker: llamactl's
// descendants, wherever they were re-parented.
func marked(marker string) int {
	n := 0
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(marker)) {
			n++
		}
	}
	return n
}

// startCLI starts this test binary as llamactl with args, in its own process
// group (as a shell's job), with marker in its environment.
func startCLI(t *testing.T, marker, path string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "LLAMACTL_TEST_AS_CLI=1", "LLAMACTL_FAULT_MARKER="+marker, "PATH="+path, "LLAMACTL_CACHE_DIR="+t.TempDir())
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
	})
	return cmd, &errOut
}

func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// Ctrl-C (SIGINT to llamactl's process group, as a terminal sends it) or
// SIGTERM while tools hang: llamactl exits 130, soon, and leaves no process
// behind (the tools run in their own groups, which the signal misses).
func TestInterruptLeavesNoProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	tools := hungTools(t)
	for _, c := range []struct {
		sig  syscall.Signal
		args []string
	}{
		{syscall.SIGINT, []string{"doctor"}},
		{syscall.SIGTERM, []string{"doctor", "--json"}},
		{syscall.SIGINT, []string{"probe"}},
		{syscall.SIGINT, []string{"build", "--dry-run"}},
	} {
		name := fmt.Sprintf("%s %s", c.sig, strings.Join(c.args, " "))
		marker := fmt.Sprintf("i14-%d-%d", os.Getpid(), time.Now().UnixNano())
		cmd, errOut := startCLI(t, marker, tools+":/usr/bin:/bin", c.args...)
		if !waitFor(20*time.Second, func() bool { return marked(marker) >= 3 }) {
			t.Fatalf("%s: the hung tools never started (%d marked processes): %s", name, marked(marker), errOut)
		}
		time.Sleep(300 * time.Millisecond)
		before := marked(marker)
		syscall.Kill(-cmd.Process.Pid, c.sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(15 * time.Second):
			t.Fatalf("%s: llamactl still running 15 s after the signal", name)
		}
		code := -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err == nil {
			code = 0
		}
		left := 0
		waitFor(3*time.Second, func() bool { left = marked(marker); return left == 0 })
		t.Logf("%s: %d processes running at the signal, exit %d, %d left", name, before, code, left)
		if code != 130 || left != 0 {
			t.Errorf("%s: exit %d, %d processes left behind; want 130 and none\n%s", name, code, left, errOut)
		}
	}
}

// kill -9 of `llamactl run` (no chance to clean up): the kernel ends the
// engine with it (PR_SET_PDEATHSIG), so it does not hold its port.
func TestKilledRunTakesTheEngineWithIt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real engine")
	}
	engineDir := testutil.EngineDir(t, "llama-server")
	dir := t.TempDir()
	model := filepath.Join(dir, "m.gguf")
	gf, err := ggufwrite.Model(ggufwrite.Small(ggufwrite.Config{Arch: "llama"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := gf.WriteFile(model); err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("i14-run-%d-%d", os.Getpid(), time.Now().UnixNano())
	cmd, out := startCLI(t, marker, os.Getenv("PATH"), "run", model, "--engine", engineDir, "--ctx", "256")
	engineUp := func() bool {
		n := 0
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			b, _ := os.ReadFile(p)
			env, _ := os.ReadFile(strings.TrimSuffix(p, "cmdline") + "environ")
			if bytes.Contains(b, []byte("llama-server")) && !bytes.Contains(b, []byte("--version")) && bytes.Contains(env, []byte(marker)) {
				n++
			}
		}
		return n > 0
	}
	if !waitFor(60*time.Second, engineUp) {
		t.Fatalf("the engine never started: %s", out)
	}
	time.Sleep(500 * time.Millisecond)
	if !engineUp() {
		t.Fatalf("the engine did not stay up: the check below would prove nothing: %s", out)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	left := 0
	waitFor(5*time.Second, func() bool { left = marked(marker); return left == 0 })
	t.Logf("kill -9 of run: %d processes left", left)
	if left != 0 {
		t.Errorf("%d processes (the engine) outlived a killed llamactl run", left)
	}
}
