package proc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestExecCapturesOutputAndExitCode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses /bin/sh")
	}
	res, err := Exec{}.Run(context.Background(), Cmd{Name: "/bin/sh", Args: []string{"-c", "echo out; echo err >&2; exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "out\n" || string(res.Stderr) != "err\n" || res.ExitCode != 3 {
		t.Fatalf("got stdout=%q stderr=%q code=%d", res.Stdout, res.Stderr, res.ExitCode)
	}
}

func TestExecKillsHangingTreeAtDeadline(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses /bin/sh")
	}
	// A child that spawns a grandchild holding the pipe: both must die.
	start := time.Now()
	res, err := Exec{}.Run(context.Background(), Cmd{Name: "/bin/sh", Args: []string{"-c", "sleep 30 & echo $!; sleep 30"}, Timeout: 300 * time.Millisecond})
	if !errors.Is(err, ErrTimeout) || !res.TimedOut {
		t.Fatalf("want timeout, got err=%v res=%+v", err, res)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %s to give up on a hanging command", d)
	}
	// Returning in time proves little (WaitDelay gives up on the pipes):
	// the grandchild itself must be gone.
	grandchildGone(t, strings.TrimSpace(string(res.Stdout)))
}

// A cancelled context (Ctrl-C) kills the tree too and says so.
func TestExecKillsTreeOnCancel(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses /bin/sh")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res, err := Exec{}.Run(ctx, Cmd{Name: "/bin/sh", Args: []string{"-c", "sleep 30 & echo $!; sleep 30"}, Timeout: time.Minute})
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) && !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
	grandchildGone(t, strings.TrimSpace(string(res.Stdout)))

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	res, err = Exec{}.Run(ctx, Cmd{Name: "/bin/sh", Args: []string{"-c", "sleep 30 & echo $!; sleep 30"}, Timeout: time.Minute})
	if !errors.Is(err, context.Canceled) || res.ExitCode != -1 {
		t.Fatalf("err = %v, exit %d; want context.Canceled, -1", err, res.ExitCode)
	}
	grandchildGone(t, strings.TrimSpace(string(res.Stdout)))
}

func grandchildGone(t *testing.T, pid string) {
	t.Helper()
	if pid == "" {
		t.Fatal("the child printed no pid")
	}
	stat := filepath.Join("/proc", pid, "stat")
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to look for the grandchild")
	}
	for i := 0; i < 100; i++ {
		b, err := os.ReadFile(stat)
		if err != nil || strings.Contains(string(b), ") Z ") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("grandchild %s outlived its killed parent", pid)
}

func TestExecNotFound(t *testing.T) {
	_, err := Exec{}.Run(context.Background(), Cmd{Name: filepath.Join(t.TempDir(), "no-such-tool")})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("want ErrNotFound, got %v", err)
	}
	if _, err := (Exec{}).LookPath("no-such-tool-llamactl"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("LookPath: want ErrNotFound, got %v", err)
	}
}

func TestExecCapsRunawayOutput(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses /bin/sh")
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	res, err := Exec{}.Run(context.Background(), Cmd{Name: "/bin/sh", Args: []string{"-c", "head -c 20000000 /dev/zero"}, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) != maxOutput {
		t.Fatalf("captured %d bytes, want the cap %d", len(res.Stdout), maxOutput)
	}
}

func TestReplayAnswersRecordedAndRefusesTheRest(t *testing.T) {
	r := &Replay{Commands: map[string]Recording{
		"nvcc --version": {Stdout: "Cuda compilation tools, release 12.4, V12.4.131\n"},
		"cl":             {Stderr: "Microsoft (R) C/C++ Optimizing Compiler Version 19.41.34123 for x64\n", ExitCode: 2},
		"vswhere":        {Hang: true},
	}}
	res, err := r.Run(context.Background(), Cmd{Name: "nvcc", Args: []string{"--version"}})
	if err != nil || !strings.Contains(string(res.Stdout), "V12.4.131") {
		t.Fatalf("recorded command: %v %q", err, res.Stdout)
	}
	res, err = r.Run(context.Background(), Cmd{Name: "cl"})
	if err != nil || res.ExitCode != 2 {
		t.Fatalf("exit code not replayed: %v %+v", err, res)
	}
	if _, err := r.Run(context.Background(), Cmd{Name: "git", Args: []string{"--version"}}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unrecorded command must be not found, got %v", err)
	}
	if _, err := r.Run(context.Background(), Cmd{Name: "vswhere", Timeout: 50 * time.Millisecond}); !errors.Is(err, ErrTimeout) {
		t.Fatalf("hang must time out, got %v", err)
	}
	if len(r.Calls) != 4 || r.Calls[0] != "nvcc --version" {
		t.Fatalf("calls not recorded: %v", r.Calls)
	}
}

func TestCmdStringQuotes(t *testing.T) {
	got := Cmd{Name: `C:\Program Files\nvcc.exe`, Args: []string{"-ccbin", "cl", ""}}.String()
	want := `"C:\\Program Files\\nvcc.exe" -ccbin cl ""`
	if got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

// One writer for both streams (a build log) is written from two goroutines;
// Exec serializes them, so nothing is lost (and -race stays quiet).
func TestExecSharedTeeWriter(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses /bin/sh")
	}
	var log strings.Builder
	script := "i=0; while [ $i -lt 2000 ]; do echo out$i; echo err$i >&2; i=$((i+1)); done"
	res, err := Exec{}.Run(context.Background(), Cmd{Name: "/bin/sh", Args: []string{"-c", script}, Stdout: &log, Stderr: &log, Timeout: time.Minute})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("err = %v, exit %d", err, res.ExitCode)
	}
	if got, want := log.Len(), len(res.Stdout)+len(res.Stderr); got != want {
		t.Errorf("shared log has %d bytes, the streams %d", got, want)
	}
	if n := strings.Count(log.String(), "\n"); n != 4000 {
		t.Errorf("shared log has %d lines, want 4000", n)
	}
}
