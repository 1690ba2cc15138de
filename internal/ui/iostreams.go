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
	// ErrTTY: ErrOut is an interactive terminal (not CI, not TERM=dumb,
	// not NO_COLOR or --no-color): live progress bars, redrawn in place with
	// cursor movements, instead of periodic lines.
	ErrTTY bool
	// JSON is set by --json: commands print one JSON document on Out.
	JSON bool
	// Verbose is set by --verbose.
	Verbose bool
	// ASCII is set when stdout is a Windows console that cannot show UTF-8
	// (a legacy code page that refused the switch to 65001): marks and
	// arrows are written in ASCII and the output language is English.
	ASCII bool
	// Restore undoes what System did to the console (its code page); the
	// process calls it before it exits. Never nil from System.
	Restore func()
}

// System returns the process's real streams; colour follows the terminal and
// NO_COLOR (https://no-color.org: any non-empty value disables colour).
// On Windows the console is switched to UTF-8 output where it allows it
// (PrepareConsole); where it does not, both streams are ASCIIWriters.
func System(getenv func(string) string) *IOStreams {
	tty := term.IsTerminal(int(os.Stdout.Fd()))
	s := &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		OutTTY:  tty,
		ErrTTY:  term.IsTerminal(int(os.Stderr.Fd())) && getenv("TERM") != "dumb" && getenv("CI") == "" && getenv("NO_COLOR") == "",
		NoColor: !tty || getenv("NO_COLOR") != "" || getenv("TERM") == "dumb",
	}
	c := systemConsole()
	outUTF8, restoreOut := PrepareConsole(c, os.Stdout.Fd())
	errUTF8, restoreErr := PrepareConsole(c, os.Stderr.Fd())
	s.Restore = func() { restoreErr(); restoreOut() }
	if !outUTF8 {
		s.ASCII, s.Out = true, ASCIIWriter{os.Stdout}
	}
	if !errUTF8 {
		s.ErrOut = ASCIIWriter{os.Stderr}
	}
	return s
}

// Test returns streams backed by buffers: not a terminal, so plain output.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, NoColor: true, Restore: func() {}}, in, out, errOut
}

// Color says whether styled output should be produced.
func (s *IOStreams) Color() bool { return !s.NoColor && s.OutTTY }
