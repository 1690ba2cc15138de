//go:build linux

package main

// What a person sees while `llamactl build` downloads and compiles: the real
// binary under a real pseudo-terminal (github.com/creack/pty), a local HTTP
// mirror serving the fixture engine's archive slowly, and the real cmake,
// ninja and compiler building it (slowed by a compiler launcher, so the
// compile lasts several redraws). The bytes the terminal receives go through
// a small terminal model (carriage return, cursor up, erase, line feed):
// the test asserts on the frames drawn and on the screen left at the end.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"

	"github.com/llamactl/llamactl/internal/testutil"
)

// paddedTarball is the fixture engine's archive with an incompressible file
// added, so the download takes seconds at the mirror's rate.
func paddedTarball(t *testing.T, pad int) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(testutil.EngineTarball(t, "llama.cpp-b9591")))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(tw, tr); err != nil {
			t.Fatal(err)
		}
	}
	noise := make([]byte, pad)
	rand.Read(noise)
	if err := tw.WriteHeader(&tar.Header{Name: "llama.cpp-b9591/pad.bin", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(pad)}); err != nil {
		t.Fatal(err)
	}
	tw.Write(noise)
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// slowMirror serves body (whatever the path) in 64 KiB pieces, one per 40 ms
// (about 1.6 MiB/s), with its length or, like GitHub's archive server often,
// without (chunked).
func slowMirror(t *testing.T, body []byte, length bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if length {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodHead {
			return
		}
		for off := 0; off < len(body); off += 64 << 10 {
			if _, err := w.Write(body[off:min(off+64<<10, len(body))]); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(40 * time.Millisecond)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// screen is a terminal model: what the bytes leave on a screen of the given
// width, and every line as it was when it was overwritten or erased.
type screen struct {
	width     int
	lines     [][]rune
	row, col  int
	overdrawn []string // lines erased or rewritten in place: the frames a person saw go by
	escapes   int      // control sequences (ESC [ ...) received
}

var csiRE = regexp.MustCompile(`^\x1b\[([0-9;?]*)([A-Za-z])`)

func (s *screen) line() []rune {
	for len(s.lines) <= s.row {
		s.lines = append(s.lines, nil)
	}
	return s.lines[s.row]
}

func (s *screen) eraseFrom(row int) {
	for r := row; r < len(s.lines); r++ {
		if txt := strings.TrimRight(string(s.lines[r]), " "); txt != "" {
			s.overdrawn = append(s.overdrawn, txt)
		}
	}
	if row < len(s.lines) {
		s.lines = s.lines[:row]
	}
}

func (s *screen) write(b []byte) {
	for len(b) > 0 {
		if m := csiRE.FindSubmatch(b); m != nil {
			s.escapes++
			n, _ := strconv.Atoi(string(m[1]))
			switch m[2][0] {
			case 'A': // cursor up
				s.row = max(0, s.row-max(n, 1))
			case 'J': // erase below (and the rest of this line)
				l := s.line()
				if s.col < len(l) {
					if txt := strings.TrimRight(string(l), " "); txt != "" {
						s.overdrawn = append(s.overdrawn, txt)
					}
					s.lines[s.row] = l[:s.col]
				}
				s.eraseFrom(s.row + 1)
			case 'K': // erase to the end of the line
				if l := s.line(); s.col < len(l) {
					s.overdrawn = append(s.overdrawn, strings.TrimRight(string(l), " "))
					s.lines[s.row] = l[:s.col]
				}
			}
			b = b[len(m[0]):]
			continue
		}
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		switch r {
		case '\r':
			s.col = 0
		case '\n':
			s.row++
			s.col = 0
		case '\x1b':
		default:
			if r < 0x20 {
				continue
			}
			if s.col >= s.width { // auto-wrap
				s.row++
				s.col = 0
			}
			l := s.line()
			if s.col < len(l) {
				if s.col == 0 {
					s.overdrawn = append(s.overdrawn, strings.TrimRight(string(l), " "))
				}
				l[s.col] = r
			} else {
				for len(l) < s.col {
					l = append(l, ' ')
				}
				l = append(l, r)
			}
			s.lines[s.row] = l
			s.col++
		}
	}
}

func (s *screen) text() string {
	var out []string
	for _, l := range s.lines {
		out = append(out, strings.TrimRight(string(l), " "))
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

type buildRun struct {
	raw    []byte // what the terminal (or the pipe) received on stderr (and stdout in a terminal)
	screen *screen
	err    error
}

// runBuild runs `llamactl build` of the fixture from the slow mirror; size
// nil: stderr is a pipe, else a pseudo-terminal of that size.
func runBuild(t *testing.T, bin, mirror string, size *pty.Winsize, args []string, env ...string) buildRun {
	t.Helper()
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow")
	// a compiler launcher that waits, so a compile of the small fixture lasts several redraws
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nsleep 0.6\nexec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "build", "--backend", "cpu", "--out", filepath.Join(dir, "dist"),
		"--cmake-arg", "CMAKE_C_COMPILER_LAUNCHER="+slow, "--cmake-arg", "CMAKE_C_LINKER_LAUNCHER="+slow)
	cmd.Args = append(cmd.Args, args...)
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8", "LLAMACTL_LANG=en",
		"LLAMACTL_CACHE_DIR=" + filepath.Join(dir, "cache"),
		"LLAMACTL_ENGINE_MIRROR=" + mirror + "/{ref}.tar.gz",
	}, env...)
	var run buildRun
	if size == nil {
		var errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &errOut
		run.err = cmd.Run()
		run.raw = errOut.Bytes()
	} else {
		f, err := pty.StartWithSize(cmd, size)
		if err != nil {
			t.Fatal(err)
		}
		var raw bytes.Buffer
		_, err = io.Copy(&raw, f) // until the child closes the terminal (EIO on Linux)
		if err != nil && !errors.Is(err, syscall.EIO) {
			t.Errorf("reading the terminal: %v", err)
		}
		run.err = cmd.Wait()
		f.Close()
		run.raw = raw.Bytes()
	}
	run.screen = &screen{width: 120}
	if size != nil && size.Cols > 0 {
		run.screen.width = int(size.Cols)
	}
	run.screen.write(run.raw)
	if run.err != nil {
		t.Fatalf("llamactl build: %v\n%s", run.err, run.raw)
	}
	return run
}

var (
	downloadRE    = regexp.MustCompile(`downloading.* (\d+\.\d) MiB / (\d+\.\d) MiB \((\d+)%\) (\d+\.\d) MiB/s`)
	compileRE     = regexp.MustCompile(`compile.* \[(\d+)/(\d+)\] (\d+)%( ETA (\S+))?`)
	unknownSizeRE = regexp.MustCompile(`downloading.*\] (\d+\.\d) MiB (\d+\.\d) MiB/s`)
	bareCR        = regexp.MustCompile(`\r[^\n]`)
	cursorRE      = regexp.MustCompile(`\x1b\[[0-9;?]*[A-HJKSTfhl]`)
)

func TestBuildProgressInATerminal(t *testing.T) {
	testutil.Need(t, "cmake", "ninja", "cc")
	bin := filepath.Join(t.TempDir(), "llamactl")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	body := paddedTarball(t, 4<<20)
	mirror := slowMirror(t, body, true).URL
	size := &pty.Winsize{Rows: 40, Cols: 120}

	t.Run("live bars", func(t *testing.T) {
		t.Parallel()
		r := runBuild(t, bin, mirror, size, nil, "TERM=xterm-256color")
		t.Logf("screen at the end:\n%s", r.screen.text())
		// Redrawn in place: frames erased by cursor-up + erase, bytes and rate moving.
		var dl, comp []string
		for _, l := range r.screen.overdrawn {
			if downloadRE.MatchString(l) {
				dl = append(dl, l)
			}
			if compileRE.MatchString(l) {
				comp = append(comp, l)
			}
		}
		seen := map[string]bool{}
		for _, l := range dl {
			m := downloadRE.FindStringSubmatch(l)
			seen[m[1]] = true
			if m[4] == "0.0" && m[1] != "0.0" {
				t.Errorf("no rate in %q", l)
			}
		}
		if len(seen) < 3 {
			t.Errorf("the download bar was redrawn with %d distinct byte counts (%d frames), want several:\n%q", len(seen), len(dl), dl)
		}
		eta := 0
		for _, l := range comp {
			if m := compileRE.FindStringSubmatch(l); m[5] != "" {
				eta++
			}
		}
		if len(comp) < 2 || eta == 0 {
			t.Errorf("compile frames %d, %d with a time left, want both:\n%q", len(comp), eta, comp)
		}
		// The screen left behind: each bar's last state once, on its own line, complete.
		final := r.screen.text()
		var dlLines, compLines []string
		for _, l := range strings.Split(final, "\n") {
			if downloadRE.MatchString(l) {
				dlLines = append(dlLines, l)
			}
			if compileRE.MatchString(l) {
				compLines = append(compLines, l)
			}
		}
		if len(dlLines) != 1 || !strings.Contains(dlLines[0], "(100%)") {
			t.Errorf("download bar lines left on screen %q, want one at 100%%", dlLines)
		}
		if len(compLines) != 1 {
			t.Errorf("compile bar lines left on screen %q, want one", compLines)
		} else if m := compileRE.FindStringSubmatch(compLines[0]); m[1] != m[2] || m[3] != "100" || m[4] != "" || !regexp.MustCompile(`100% in \d+s$`).MatchString(compLines[0]) {
			t.Errorf("the compile bar ends at %q, want [n/n] 100%% in Ns", compLines[0])
		}
		if strings.Contains(final, "\x1b") {
			t.Errorf("a control sequence is left on screen")
		}
		if !strings.Contains(final, "dist") {
			t.Errorf("the build's closing lines are missing from the screen:\n%s", final)
		}
	})

	// Without a Content-Length the bar counts bytes and the rate, and keeps
	// counting until the end.
	t.Run("live bars, size unknown", func(t *testing.T) {
		t.Parallel()
		r := runBuild(t, bin, slowMirror(t, body, false).URL, size, nil, "TERM=xterm-256color")
		seen := map[string]bool{}
		for _, l := range r.screen.overdrawn {
			if m := unknownSizeRE.FindStringSubmatch(l); m != nil {
				seen[m[1]] = true
			}
		}
		var last []string
		for _, l := range strings.Split(r.screen.text(), "\n") {
			if m := unknownSizeRE.FindStringSubmatch(l); m != nil {
				last = m
			}
		}
		if len(seen) < 3 || last == nil || last[1] != fmt.Sprintf("%.1f", float64(len(body))/(1<<20)) {
			t.Errorf("the download bar showed %d distinct byte counts and ends at %q, want several and the whole archive:\n%s", len(seen), last, r.screen.text())
		}
	})

	plain := func(t *testing.T, r buildRun, colour bool) {
		t.Helper()
		// A terminal's line discipline turns "\n" into "\r\n"; any other
		// carriage return, cursor movement or erase is a bar's.
		if bareCR.Match(r.raw) || cursorRE.Match(r.raw) {
			t.Errorf("carriage returns or cursor movements in plain output:\n%q", r.raw)
		}
		if !colour && bytes.Contains(r.raw, []byte("\x1b")) {
			t.Errorf("escape codes in plain output without colour:\n%q", r.raw)
		}
		if len(r.screen.overdrawn) > 0 {
			t.Errorf("lines overdrawn in plain output: %q", r.screen.overdrawn)
		}
		text := string(r.raw)
		dl := downloadRE.FindAllString(text, -1)
		comp := compileRE.FindAllString(text, -1)
		if len(dl) == 0 || !strings.Contains(dl[len(dl)-1], "(100%)") {
			t.Errorf("download lines %q, want periodic lines ending at 100%%", dl)
		}
		if len(comp) == 0 || !strings.Contains(comp[len(comp)-1], "100%") {
			t.Errorf("compile lines %q, want periodic lines ending at 100%%", comp)
		}
		t.Logf("%d download and %d compile lines", len(dl), len(comp))
	}
	for _, c := range []struct {
		name   string
		size   *pty.Winsize
		args   []string
		env    []string
		colour bool // the marks may still be coloured (SGR sequences)
	}{
		{"NO_COLOR", size, nil, []string{"TERM=xterm-256color", "NO_COLOR=1"}, false},
		{"--no-color", size, []string{"--no-color"}, []string{"TERM=xterm-256color"}, false},
		{"TERM=dumb", size, nil, []string{"TERM=dumb"}, false},
		{"CI", size, nil, []string{"TERM=xterm-256color", "CI=true"}, true},
		// a terminal that reports no size (a pseudo-terminal nobody sized):
		// a bar would be drawn into zero rows, i.e. not at all
		{"unsized terminal", &pty.Winsize{}, nil, []string{"TERM=xterm-256color"}, true},
		{"not a terminal", nil, nil, []string{"TERM=xterm-256color"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			plain(t, runBuild(t, bin, mirror, c.size, c.args, c.env...), c.colour)
		})
	}
}

func TestScreenModel(t *testing.T) {
	s := &screen{width: 20}
	s.write([]byte("a: 1\r\n\x1b[1A\x1b[Ja: 2\r\n\x1b[1A\x1b[Ja: 3\r\nend\r\n"))
	if got := s.text(); got != "a: 3\nend" {
		t.Errorf("screen %q", got)
	}
	if fmt.Sprint(s.overdrawn) != "[a: 1 a: 2]" || s.escapes != 4 {
		t.Errorf("overdrawn %q, escapes %d", s.overdrawn, s.escapes)
	}
	s = &screen{width: 20}
	s.write([]byte("50%\r100%\n"))
	if s.text() != "100%" || len(s.overdrawn) != 1 {
		t.Errorf("carriage return: %q %q", s.text(), s.overdrawn)
	}
}
