package proc

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/testutil"
)

func TestLineWriterSplitsLines(t *testing.T) {
	var got []string
	w := &LineWriter{Fn: func(l string) { got = append(got, l) }}
	for _, p := range []string{"version: 0.7.0 (build 11669", ", commit Debian)\r\nload_backend: ", "loaded CPU\n\nlast"} {
		w.Write([]byte(p))
	}
	if want := []string{"version: 0.7.0 (build 11669, commit Debian)", "load_backend: loaded CPU", ""}; !slices.Equal(got, want) {
		t.Fatalf("lines %q, want %q", got, want)
	}
	w.Flush()
	w.Flush() // nothing left: no empty line
	if got[len(got)-1] != "last" || w.Lines() != 4 {
		t.Errorf("after Flush: %q (%d lines)", got, w.Lines())
	}
}

func TestLineWriterCutsRunawayLine(t *testing.T) {
	var got []int
	w := &LineWriter{Fn: func(l string) { got = append(got, len(l)) }}
	chunk := []byte(strings.Repeat("x", 64<<10))
	for range 17 {
		w.Write(chunk)
	}
	if len(got) != 1 || got[0] != 17*64<<10 || len(w.buf) != 0 {
		t.Errorf("a line over 1 MiB was not passed on: %v, %d bytes held", got, len(w.buf))
	}
}

// Stdout and stderr of a real command written to one LineWriter at once.
func TestLineWriterBothStreams(t *testing.T) {
	testutil.Need(t, "sh")
	var mu sync.Mutex
	var got []string
	w := &LineWriter{Fn: func(l string) { mu.Lock(); got = append(got, l); mu.Unlock() }}
	_, err := Exec{}.Run(context.Background(), Cmd{Name: "sh", Args: []string{"-c", "for i in 1 2 3 4 5; do echo out$i; echo err$i >&2; done"}, Timeout: 10 * time.Second, Stdout: w, Stderr: w})
	if err != nil {
		t.Fatal(err)
	}
	w.Flush()
	slices.Sort(got)
	if want := []string{"err1", "err2", "err3", "err4", "err5", "out1", "out2", "out3", "out4", "out5"}; !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
}
