package proc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/testutil/faketool"
)

func TestMain(m *testing.M) {
	faketool.Main()
	os.Exit(m.Run())
}

// tree is a stand-in that starts a grandchild, prints its pid, and hangs
// with it (both hold the pipes).
func tree(t *testing.T) string {
	return faketool.Install(t, t.TempDir(), "tree", faketool.Spec{Child: &faketool.Spec{Hang: true}, Hang: true})
}

func TestExecCapturesOutputAndExitCode(t *testing.T) {
	p := faketool.Install(t, t.TempDir(), "tool", faketool.Spec{Stdout: []byte("out\n"), Stderr: []byte("err\n"), Exit: 3})
	res, err := Exec{}.Run(context.Background(), Cmd{Name: p})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "out\n" || string(res.Stderr) != "err\n" || res.ExitCode != 3 {
		t.Fatalf("got stdout=%q stderr=%q code=%d", res.Stdout, res.Stderr, res.ExitCode)
	}
}

func TestExecKillsHangingTreeAtDeadline(t *testing.T) {
	// A child that spawns a grandchild holding the pipe: both must die.
	// (The deadline leaves the child time to start its grandchild and
	// print its pid under wine too.)
	p := tree(t)
	start := time.Now()
	res, err := Exec{}.Run(context.Background(), Cmd{Name: p, Timeout: 3 * time.Second})
	if !errors.Is(err, ErrTimeout) || !res.TimedOut {
		t.Fatalf("want timeout, got err=%v res=%+v", err, res)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("took %s to give up on a hanging command", d)
	}
	// Returning in time proves little (WaitDelay gives up on the pipes):
	// the grandchild itself must be gone.
	grandchildGone(t, strings.TrimSpace(string(res.Stdout)))
}

// A cancelled context (Ctrl-C) kills the tree too and says so.
func TestExecKillsTreeOnCancel(t *testing.T) {
	p := tree(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	res, err := Exec{}.Run(ctx, Cmd{Name: p, Timeout: time.Minute})
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) && !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
	grandchildGone(t, strings.TrimSpace(string(res.Stdout)))

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(3*time.Second, cancel)
	res, err = Exec{}.Run(ctx, Cmd{Name: p, Timeout: time.Minute})
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
	n, err := strconv.Atoi(pid)
	if err != nil {
		t.Fatalf("the child printed %q, not a pid", pid)
	}
	for i := 0; i < 250; i++ {
		if !alive(t, n) {
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
	p := faketool.Install(t, t.TempDir(), "runaway", faketool.Spec{Stdout: make([]byte, 1<<20), Repeat: 20})
	res, err := Exec{}.Run(context.Background(), Cmd{Name: p, Timeout: 60 * time.Second})
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
	var log strings.Builder
	// 2000 writes of a line on each stream, interleaved.
	p := faketool.Install(t, t.TempDir(), "chatty", faketool.Spec{Stdout: []byte("out line\n"), Stderr: []byte("err line\n"), Repeat: 2000})
	res, err := Exec{}.Run(context.Background(), Cmd{Name: p, Stdout: &log, Stderr: &log, Timeout: time.Minute})
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
