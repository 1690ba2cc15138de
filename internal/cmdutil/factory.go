// Package cmdutil is what every command gets injected: its streams, the
// environment, the command runner, the file system root and the clock. It
// follows gh's Factory: commands are built from it and tested by building
// one with recorded parts.
package cmdutil

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/ui"
)

// Factory holds the world a command sees.
type Factory struct {
	IO      *ui.IOStreams
	Getenv  func(string) string
	Environ func() []string
	Runner  proc.Runner
	Now     func() time.Time
	// Executable is llamactl's own path, used to start child probes.
	Executable func() (string, error)
}

// Env is what domain packages may use of the factory (proc.Env): runner,
// environment, clock and llamactl's own path, never the streams.
func (f *Factory) Env() proc.Env {
	return proc.Env{Runner: f.Runner, Getenv: f.Getenv, Environ: f.Environ, Now: f.Now, Executable: f.Executable}
}

// New returns a factory wired to the real process.
func New() *Factory {
	return &Factory{
		IO:         ui.System(os.Getenv),
		Getenv:     os.Getenv,
		Environ:    os.Environ,
		Runner:     proc.Exec{},
		Now:        time.Now,
		Executable: os.Executable,
	}
}

// NewTest returns a factory with buffer streams, the given environment and
// runner. The returned buffers are stdout and stderr.
func NewTest(env map[string]string, runner proc.Runner) (*Factory, *strings.Builder, *strings.Builder) {
	ios, _, _, _ := ui.Test()
	out, errOut := &strings.Builder{}, &strings.Builder{}
	ios.Out, ios.ErrOut = out, errOut
	if runner == nil {
		runner = &proc.Replay{}
	}
	return &Factory{
		IO:     ios,
		Getenv: func(k string) string { return env[k] },
		Environ: func() []string {
			var kv []string
			for k, v := range env {
				kv = append(kv, k+"="+v)
			}
			return kv
		},
		Runner:     runner,
		Now:        func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) },
		Executable: func() (string, error) { return "", errors.New("no executable in tests") },
	}, out, errOut
}

// Exit codes, documented in docs/exit-codes.md.
const (
	ExitOK       = 0 // everything fine
	ExitFindings = 1 // findings or errors the user must act on
	ExitUsage    = 2 // bad flags, arguments or input files
	ExitInternal = 3 // llamactl itself failed (bug, unexpected I/O error)
	ExitBuild    = 4 // build: configure/compile/verify failed
	ExitEngine   = 5 // run: the engine failed or could not be started
	ExitCheck    = 6 // build --check: the machine no longer satisfies the lock
	ExitSignal   = 130
)

// ExitError carries an exit code out of a command. Message is what happened,
// why, and the next command to run.
type ExitError struct {
	Code    int
	Message string
	// Silent errors have already been reported by the command (e.g. findings).
	Silent bool
	// Err is the domain error the command mapped to Code, if any.
	Err error
}

func (e *ExitError) Error() string { return e.Message }

func (e *ExitError) Unwrap() error { return e.Err }

// Exit returns an error that ends the program with code, printing nothing more.
func Exit(code int) error { return &ExitError{Code: code, Silent: true} }

// Errorf returns an ExitError with a message.
func Errorf(code int, format string, a ...any) error {
	return &ExitError{Code: code, Message: fmt.Sprintf(format, a...)}
}

// UsageErrorf is a bad-input error (exit 2).
func UsageErrorf(format string, a ...any) error { return Errorf(ExitUsage, format, a...) }

// UsageError turns a domain package's error about bad input (a typed error
// such as *machine.LoadError) into exit 2, keeping its message and the
// error itself for errors.As.
func UsageError(err error) error {
	if err == nil {
		return nil
	}
	return &ExitError{Code: ExitUsage, Message: err.Error(), Err: err}
}

// ExitCode maps an error to the process exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitInternal
}
