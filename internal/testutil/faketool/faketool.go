// Package faketool makes stand-in tools (nvidia-smi that hangs, cmake that
// prints non-UTF-8 garbage, a child probe that crashes...) out of real
// programs built for the target OS, so the same tests run on Linux and on
// Windows (no #!/bin/sh scripts). A test installs the running test binary
// under the tool's name with a Spec beside it (Install); the binary's
// TestMain calls Main first, which acts the Spec out when the program was
// started under such a name. cmd/faketool is the same as a standalone
// program, for the smoke suite of the real llamactl.exe.
//
// Only tests and the smoke suite use it.
package faketool

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/recorded"
)

// SpecSuffix is appended to a stand-in's file name for its Spec.
const SpecSuffix = ".faketool.json"

// Spec is what a stand-in tool does when it is run. Byte fields are bytes as
// they are (invalid UTF-8 included; JSON carries them as base64).
type Spec struct {
	Stdout []byte `json:"stdout,omitempty"`
	Stderr []byte `json:"stderr,omitempty"`
	// StdoutFile, StderrFile: a recorded output printed after Stdout/Stderr,
	// its recording header (recorded.Body) dropped. A relative path is
	// relative to the spec file.
	StdoutFile string `json:"stdout_file,omitempty"`
	StderrFile string `json:"stderr_file,omitempty"`
	// Repeat writes Stdout and Stderr this many times (a runaway output)
	// when above 1.
	Repeat int `json:"repeat,omitempty"`
	// Exit is the exit status.
	Exit int `json:"exit,omitempty"`
	// Hang: after printing, sleep until killed (an hour).
	Hang bool `json:"hang,omitempty"`
	// Crash: die as a crashing program does (SIGSEGV on POSIX, an access
	// violation status, 0xC0000005, on Windows).
	Crash bool `json:"crash,omitempty"`
	// Child: first start another stand-in with this Spec, print its process
	// id on a line of stdout, and leave it running (a grandchild holding the
	// pipes).
	Child *Spec `json:"child,omitempty"`
	// Args: a Spec for one exact argument list (joined by spaces); the
	// outer Spec answers every other argument list.
	Args map[string]*Spec `json:"args,omitempty"`
	// Cases: when no Args entry matched, the first Case whose Arg is one of
	// the arguments answers (a compiler's "-c").
	Cases []Case `json:"cases,omitempty"`
	// OutFlag: write the file named by the argument after this flag (a
	// compiler's "-o FILE"): a stand-in with OutSpec (".exe" added on
	// Windows when the name lacks it), or an empty file when OutSpec is nil.
	OutFlag string `json:"out_flag,omitempty"`
	OutSpec *Spec  `json:"out_spec,omitempty"`
}

// Case is a Spec for the invocations that have Arg among their arguments.
type Case struct {
	Arg  string `json:"arg"`
	Spec Spec   `json:"spec"`
}

// statusAccessViolation is the exit status Windows gives a process that
// crashed on a bad memory access (0xC0000005).
const statusAccessViolation = 0xC0000005

// Install places a stand-in called name (".exe" added on Windows) in dir:
// the running test binary (a hard link, else a copy) with spec beside it.
// The package's TestMain must call Main. It returns the stand-in's path.
func Install(tb testing.TB, dir, name string, spec Spec) string {
	tb.Helper()
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	p, err := Place(self, dir, name, spec)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// Place copies (or hard-links) program into dir under name (".exe" added on
// Windows) and writes spec beside it; it returns the stand-in's path.
func Place(program, dir, name string, spec Spec) (string, error) {
	if runtime.GOOS == "windows" && !strings.HasSuffix(strings.ToLower(name), ".exe") {
		name += ".exe"
	}
	p := filepath.Join(dir, name)
	_ = os.Remove(p)
	if err := os.Link(program, p); err != nil {
		if err := copyFile(program, p); err != nil {
			return "", err
		}
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return "", err
	}
	return p, os.WriteFile(p+SpecSuffix, b, 0o644)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Main acts out this program's Spec and exits when the program was started
// as a stand-in (a Spec file stands beside it); otherwise it returns.
func Main() {
	self, err := os.Executable()
	if err != nil {
		return
	}
	b, err := os.ReadFile(self + SpecSuffix)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "faketool: %v\n", err)
		os.Exit(125)
	}
	var s Spec
	if err := json.Unmarshal(b, &s); err != nil {
		fmt.Fprintf(os.Stderr, "faketool: %s: %v\n", self+SpecSuffix, err)
		os.Exit(125)
	}
	os.Exit(act(self, filepath.Dir(self), s, os.Args[1:]))
}

func act(self, specDir string, s Spec, args []string) int {
	if a, ok := s.Args[strings.Join(args, " ")]; ok {
		s = *a
	} else {
		for _, c := range s.Cases {
			if slices.Contains(args, c.Arg) {
				s = c.Spec
				break
			}
		}
	}
	if s.OutFlag != "" {
		if i := slices.Index(args, s.OutFlag); i >= 0 && i+1 < len(args) {
			out := args[i+1]
			var err error
			if s.OutSpec != nil {
				_, err = Place(self, filepath.Dir(out), filepath.Base(out), *s.OutSpec)
			} else {
				err = os.WriteFile(out, nil, 0o644)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "faketool: %s: %v\n", out, err)
				return 125
			}
		}
	}
	if s.Child != nil {
		dir, err := os.MkdirTemp("", "faketool-child")
		if err == nil {
			var child string
			child, err = Place(self, dir, "child", *s.Child)
			if err == nil {
				cmd := exec.Command(child)
				if err = cmd.Start(); err == nil {
					fmt.Printf("%d\n", cmd.Process.Pid)
				}
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "faketool: child: %v\n", err)
			return 125
		}
	}
	for i := 1; i < s.Repeat; i++ {
		if _, err := os.Stdout.Write(s.Stdout); err != nil {
			return 125
		}
		if _, err := os.Stderr.Write(s.Stderr); err != nil {
			return 125
		}
	}
	if err := emit(os.Stdout, s.Stdout, specDir, s.StdoutFile); err != nil {
		return 125
	}
	if err := emit(os.Stderr, s.Stderr, specDir, s.StderrFile); err != nil {
		return 125
	}
	if s.Crash {
		crash()
	}
	if s.Hang {
		time.Sleep(time.Hour)
	}
	return s.Exit
}

func emit(w io.Writer, b []byte, dir, file string) error {
	if _, err := w.Write(b); err != nil {
		return err
	}
	if file == "" {
		return nil
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	rec, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "faketool: %v\n", err)
		return err
	}
	_, err = io.WriteString(w, recorded.Body(string(rec)))
	return err
}
