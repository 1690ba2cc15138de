// Package proc runs external commands. Everything llamactl learns from the
// outside world through a command goes through Runner, so rules and planners
// are tested with recorded real outputs (see Replay) and every command has a
// deadline.
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// DefaultTimeout bounds a command when the caller gives no deadline.
const DefaultTimeout = 10 * time.Second

// maxOutput caps captured stdout/stderr so a runaway tool cannot exhaust memory.
const maxOutput = 8 << 20

// Cmd describes one command to run.
type Cmd struct {
	Name    string
	Args    []string
	Dir     string
	Env     []string // full environment; nil inherits the caller's
	Stdin   io.Reader
	Timeout time.Duration // 0 means DefaultTimeout
	// Stdout/Stderr, when set, also receive the output live (e.g. build progress).
	Stdout io.Writer
	Stderr io.Writer
}

// String renders the command for logs and error messages.
func (c Cmd) String() string {
	parts := append([]string{c.Name}, c.Args...)
	for i, p := range parts {
		if p == "" || strings.ContainsAny(p, " \t\"'") {
			parts[i] = fmt.Sprintf("%q", p)
		}
	}
	return strings.Join(parts, " ")
}

// deadline is the command's timeout, DefaultTimeout when it gives none; the
// real runner and the replay both bound a command by it.
func (c Cmd) deadline() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

// Result is what a command did.
type Result struct {
	Stdout   []byte        `json:"stdout"`
	Stderr   []byte        `json:"stderr"`
	ExitCode int           `json:"exit_code"`
	Duration time.Duration `json:"duration"`
	TimedOut bool          `json:"timed_out,omitempty"`
}

// Combined returns stdout followed by stderr.
func (r Result) Combined() string { return string(r.Stdout) + string(r.Stderr) }

// ErrNotFound is returned (wrapped) when the program does not exist.
var ErrNotFound = errors.New("program not found")

// ErrTimeout is returned (wrapped) when the command ran past its deadline.
var ErrTimeout = errors.New("command timed out")

// Runner runs commands and looks programs up. The real one is Exec; tests use
// Replay with recorded outputs.
type Runner interface {
	Run(ctx context.Context, c Cmd) (Result, error)
	LookPath(name string) (string, error)
}

// Exec runs real processes.
type Exec struct{}

func (Exec) LookPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	return p, nil
}

type capWriter struct {
	buf bytes.Buffer
	tee io.Writer
	// teeMu is shared by a command's stdout and stderr writers: os/exec
	// copies the two pipes in two goroutines, and callers often pass one
	// writer (a log) for both.
	teeMu *sync.Mutex
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := maxOutput - w.buf.Len(); room > 0 {
		if len(p) > room {
			w.buf.Write(p[:room])
		} else {
			w.buf.Write(p)
		}
	}
	if w.tee != nil {
		w.teeMu.Lock()
		_, _ = w.tee.Write(p)
		w.teeMu.Unlock()
	}
	return len(p), nil
}

// Run starts the command and waits for it, killing it (and, where the OS
// allows, its process group) at the deadline or when ctx ends. A non-zero
// exit is not an error: it is reported in Result.ExitCode. While it runs,
// the child is registered so KillAll can end it on any exit path.
func (Exec) Run(ctx context.Context, c Cmd) (Result, error) {
	timeout := c.deadline()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Name, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	cmd.Stdin = c.Stdin
	setProcessGroup(cmd)
	cmd.WaitDelay = 2 * time.Second // do not wait forever on grandchildren holding pipes
	teeMu := &sync.Mutex{}
	out := &capWriter{tee: c.Stdout, teeMu: teeMu}
	errw := &capWriter{tee: c.Stderr, teeMu: teeMu}
	cmd.Stdout, cmd.Stderr = out, errw
	start := time.Now()
	err := startTracked(cmd)
	if err == nil {
		err = cmd.Wait()
		untrack(cmd)
	}
	res := Result{Stdout: out.buf.Bytes(), Stderr: errw.buf.Bytes(), Duration: time.Since(start)}
	if ctx.Err() == context.DeadlineExceeded {
		res.TimedOut = true
		res.ExitCode = -1
		return res, fmt.Errorf("%s: %w after %s", c.String(), ErrTimeout, timeout)
	}
	if ctx.Err() == context.Canceled {
		// The caller gave up (Ctrl-C): the process group was killed, so the
		// exit status is the kill's, not the program's.
		res.ExitCode = -1
		return res, fmt.Errorf("%s: stopped: %w", c.String(), context.Canceled)
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			res.ExitCode = ee.ExitCode()
			return res, nil
		}
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, exec.ErrDot) || isNotExist(err) {
			return res, fmt.Errorf("%s: %w", c.Name, ErrNotFound)
		}
		return res, fmt.Errorf("run %s: %w", c.String(), err)
	}
	return res, nil
}

// live holds the children now running, so that every exit path — a second
// Ctrl-C, a command that does not stop in time, a panic — can end them.
var live = struct {
	sync.Mutex
	cmds map[*exec.Cmd]struct{}
	// closed is set by KillAll: llamactl is exiting, nothing new starts.
	closed bool
}{cmds: map[*exec.Cmd]struct{}{}}

// ErrExiting is returned for a command started after KillAll.
var ErrExiting = errors.New("llamactl is exiting")

func startTracked(cmd *exec.Cmd) error {
	live.Lock()
	defer live.Unlock()
	if live.closed {
		return ErrExiting
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	live.cmds[cmd] = struct{}{}
	return nil
}

func untrack(cmd *exec.Cmd) {
	live.Lock()
	delete(live.cmds, cmd)
	live.Unlock()
}

// KillAll ends every running child and its process group (its whole tree
// on Windows) and refuses new ones. It is for llamactl's last moments: a
// second Ctrl-C, a command that did not stop after the first, a panic.
func KillAll() {
	live.Lock()
	live.closed = true
	cmds := make([]*exec.Cmd, 0, len(live.cmds))
	for c := range live.cmds {
		cmds = append(cmds, c)
	}
	live.Unlock()
	for _, c := range cmds {
		_ = c.Cancel()
	}
}
