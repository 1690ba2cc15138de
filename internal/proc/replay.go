package proc

import (
	"context"
	"fmt"
	"strings"
)

// Recording is one recorded command output, keyed by the command line.
type Recording struct {
	Stdout   string `json:"stdout,omitempty"`
	Stderr   string `json:"stderr,omitempty"`
	ExitCode int    `json:"exit_code,omitempty"`
	// NotFound marks a program that does not exist on the recorded machine.
	NotFound bool `json:"not_found,omitempty"`
	// Hang makes the replayed command behave like one that never returns
	// (it waits for the context or timeout).
	Hang bool `json:"hang,omitempty"`
}

// Replay answers commands from recordings of a real machine. Keys are
// "name arg1 arg2" (the program's base name or full path as called).
// Unrecorded commands are reported as not found, so a test never silently
// reaches the real machine.
type Replay struct {
	Commands map[string]Recording
	Paths    map[string]string // LookPath answers: name -> path
	Calls    []string          // every command line asked for, in order
}

func (r *Replay) key(c Cmd) string {
	return strings.TrimSpace(c.Name + " " + strings.Join(c.Args, " "))
}

func (r *Replay) Run(ctx context.Context, c Cmd) (Result, error) {
	k := r.key(c)
	r.Calls = append(r.Calls, k)
	rec, ok := r.Commands[k]
	if !ok || rec.NotFound {
		return Result{ExitCode: -1}, fmt.Errorf("%s: %w", c.Name, ErrNotFound)
	}
	if rec.Hang {
		timeout := c.deadline()
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		<-ctx.Done()
		return Result{ExitCode: -1, TimedOut: true}, fmt.Errorf("%s: %w after %s", c.String(), ErrTimeout, timeout)
	}
	return Result{Stdout: []byte(rec.Stdout), Stderr: []byte(rec.Stderr), ExitCode: rec.ExitCode}, nil
}

func (r *Replay) LookPath(name string) (string, error) {
	if p, ok := r.Paths[name]; ok {
		return p, nil
	}
	return "", fmt.Errorf("%s: %w", name, ErrNotFound)
}
