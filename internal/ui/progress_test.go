package ui

import (
	"strings"
	"testing"
	"time"
)

func TestProgressText(t *testing.T) {
	for _, c := range []struct {
		u           Unit
		done, total int64
		el          time.Duration
		what, want  string
	}{
		{Steps, 54, 216, 3 * time.Minute, "Building CXX object a.o", "[54/216] 25% ETA 9m0s: Building CXX object a.o"},
		{Steps, 0, 216, time.Second, "", "[0/216] 0%"},
		{Steps, 216, 216, time.Hour + 400*time.Millisecond, "Linking CXX executable bin/llama-server", "[216/216] 100% in 1h0m0s"},
		{Bytes, 12 << 20, 48 << 20, 4 * time.Second, "", "12.0 MiB / 48.0 MiB (25%) 3.0 MiB/s"},
		{Bytes, 3 << 20, 0, 0, "", "3.0 MiB"},
	} {
		if got := ProgressText(c.u, c.done, c.total, c.el, c.what); got != c.want {
			t.Errorf("ProgressText(%v, %d, %d, %s) = %q, want %q", c.u, c.done, c.total, c.el, got, c.want)
		}
	}
}

// Not a terminal (CI, a pipe): plain lines, about one per 10 %, the last
// one always; with --json nothing.
func TestProgressPlainLines(t *testing.T) {
	s, _, _, errOut := Test()
	clock := time.Unix(0, 0)
	pr := NewProgress(s, "compile", Steps)
	pr.now = func() time.Time { return clock }
	pr.start = clock
	for i := int64(1); i <= 100; i++ {
		clock = clock.Add(time.Second)
		pr.Update(i, 100, "step")
	}
	pr.Done()
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	if len(lines) < 10 || len(lines) > 12 || lines[len(lines)-1] != "compile: [100/100] 100% in 1m40s" {
		t.Errorf("%d lines:\n%s", len(lines), errOut)
	}
	if !strings.Contains(errOut.String(), "compile: [10/100] 10% ETA 1m30s: step") {
		t.Errorf("no ETA line:\n%s", errOut)
	}
	s2, _, _, errOut2 := Test()
	s2.JSON = true
	pr2 := NewProgress(s2, "compile", Steps)
	pr2.Update(1, 2, "x")
	pr2.Done()
	if errOut2.Len() != 0 {
		t.Errorf("--json printed %q", errOut2)
	}
}

// A download of unknown size in CI: a line every 10 s, and the last state
// when it ends, not the one of up to 10 s before.
func TestProgressPlainUnknownSize(t *testing.T) {
	s, _, _, errOut := Test()
	clock := time.Unix(0, 0)
	pr := NewProgress(s, "downloading", Bytes)
	pr.now = func() time.Time { return clock }
	pr.start = clock
	for i := int64(1); i <= 50; i++ {
		clock = clock.Add(300 * time.Millisecond)
		pr.Update(i<<20, -1, "")
	}
	pr.Done()
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	if len(lines) != 3 || lines[1] != "downloading: 35.0 MiB 3.3 MiB/s" || lines[2] != "downloading: 50.0 MiB 3.3 MiB/s" {
		t.Errorf("%d lines:\n%s", len(lines), errOut)
	}
}
