// Package ui is the one output layer every command uses: lipgloss styles for
// a person at a terminal, plain text when stdout is not a terminal or
// NO_COLOR is set, and JSON with a top-level "schema" when --json is given.
package ui

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the streams a command reads and writes. Tests build them with
// Test() and read the buffers back.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	// OutTTY says stdout is a terminal (styles and marks in colour).
	OutTTY bool
	// NoColor is set by NO_COLOR, --no-color or a non-terminal stdout.
	NoColor bool
	// ErrTTY: ErrOut is an interactive terminal (not CI, not TERM=dumb):
	// live progress bars instead of periodic lines.
	ErrTTY bool
	// JSON is set by --json: commands print one JSON document on Out.
	JSON bool
	// Verbose is set by --verbose.
	Verbose bool
}

// System returns the process's real streams; colour follows the terminal and
// NO_COLOR (https://no-color.org: any non-empty value disables colour).
func System(getenv func(string) string) *IOStreams {
	tty := term.IsTerminal(int(os.Stdout.Fd()))
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		OutTTY:  tty,
		ErrTTY:  term.IsTerminal(int(os.Stderr.Fd())) && getenv("TERM") != "dumb" && getenv("CI") == "",
		NoColor: !tty || getenv("NO_COLOR") != "" || getenv("TERM") == "dumb",
	}
}

// Test returns streams backed by buffers: not a terminal, so plain output.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, NoColor: true}, in, out, errOut
}

// Color says whether styled output should be produced.
func (s *IOStreams) Color() bool { return !s.NoColor && s.OutTTY }
