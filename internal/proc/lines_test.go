package proc

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/testutil/faketool"
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
	p := faketool.Install(t, t.TempDir(), "both", faketool.Spec{Stdout: []byte("out\n"), Stderr: []byte("err\n"), Repeat: 5})
	var mu sync.Mutex
	var got []string
	w := &LineWriter{Fn: func(l string) { mu.Lock(); got = append(got, l); mu.Unlock() }}
	_, err := Exec{}.Run(context.Background(), Cmd{Name: p, Timeout: 10 * time.Second, Stdout: w, Stderr: w})
	if err != nil {
		t.Fatal(err)
	}
	w.Flush()
	slices.Sort(got)
	if want := []string{"err", "err", "err", "err", "err", "out", "out", "out", "out", "out"}; !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
}
