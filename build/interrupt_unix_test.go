//go:build linux

package build

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llamactl/llamactl/build/plan"
)

// Ctrl-C mid-compile: a stand-in cmake whose "--build" starts a compiler
// (sleep) in the background, as ninja does, then waits. Cancelling the
// context must kill both, return the interrupt exit code, and not diagnose
// or heal the killed compile.
func TestBuildInterruptKillsCompileTree(t *testing.T) {
	bin := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "compiler.pid")
	script := "#!/bin/sh\n" +
		"case \"$1\" in --build) ;; *) exit 0 ;; esac\n" +
		"echo '[1/2] Building CXX object ggml.o'\n" +
		"sleep 300 &\n" +
		"echo $! > " + pidFile + ".tmp && mv " + pidFile + ".tmp " + pidFile + "\n" +
		"wait\n"
	if err := os.WriteFile(filepath.Join(bin, "cmake"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	src := fixtureSource(t)
	in := input(t, src, "cpu", plan.Selection{Backend: "cpu"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	var res *Result
	go func() {
		var err error
		res, err = Run(ctx, deps(), in, Options{Heal: true})
		done <- err
	}()

	var pid int
	for deadline := time.Now().Add(30 * time.Second); pid == 0; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		select {
		case err := <-done:
			t.Fatalf("build ended before the compile started: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the stand-in compiler never started")
		}
	}
	if !alive(pid) {
		t.Fatal("the stand-in compiler is not running: the check below would prove nothing")
	}
	cancel()
	select {
	case err := <-done:
		var be *Error
		if !errors.As(err, &be) || be.Kind != Interrupted || !strings.Contains(be.Message, "interrupted") {
			t.Errorf("err = %v, want the interrupt (exit 130)", err)
		}
		if res.Attempts != 1 || len(res.Diagnoses) != 0 {
			t.Errorf("a killed compile was retried or diagnosed: attempts %d, diagnoses %v", res.Attempts, res.Diagnoses)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("build did not return after the interrupt")
	}
	for i := 0; i < 50 && alive(pid); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Error("the compiler outlived the interrupted build")
	}
}

// alive says whether pid runs (a zombie is already dead).
func alive(pid int) bool {
	st, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err == nil && !strings.Contains(string(st), ") Z ")
}
