package proc

import (
	"bytes"
	"strings"
	"sync"
)

// maxLine bounds one buffered line: a tool that prints megabytes without a
// newline must not grow memory without end.
const maxLine = 1 << 20

// LineWriter calls Fn with each complete line written to it, without its
// "\n" or "\r\n", so a command's output can be followed while it runs (set
// it as Cmd.Stdout and Cmd.Stderr). It is safe for both streams at once. A
// line longer than 1 MiB is passed on in pieces; Flush passes a last line
// that has no newline.
type LineWriter struct {
	Fn func(line string)

	mu    sync.Mutex
	buf   []byte
	lines int
}

func (w *LineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.emit(strings.TrimRight(string(w.buf[:i]), "\r"))
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > maxLine {
		w.emit(string(w.buf))
		w.buf = nil
	}
	return len(p), nil
}

// Flush passes on what is left after the last newline.
func (w *LineWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.emit(string(w.buf))
		w.buf = nil
	}
}

// Lines is how many lines Fn was given.
func (w *LineWriter) Lines() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lines
}

func (w *LineWriter) emit(line string) {
	w.Fn(line)
	w.lines++
}
