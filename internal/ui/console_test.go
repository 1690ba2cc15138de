package ui

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// fakeConsole is a Windows console: its code page, whether it accepts 65001.
type fakeConsole struct {
	console bool
	cp      uint32
	refuse  bool
	sets    []uint32
}

func (c *fakeConsole) IsConsole(uintptr) bool    { return c.console }
func (c *fakeConsole) OutputCP() (uint32, error) { return c.cp, nil }
func (c *fakeConsole) SetOutputCP(cp uint32) error {
	c.sets = append(c.sets, cp)
	if c.refuse {
		return errors.New("The parameter is incorrect.")
	}
	c.cp = cp
	return nil
}

func TestPrepareConsole(t *testing.T) {
	// A pipe or a file: UTF-8 bytes as they are, the console untouched.
	c := &fakeConsole{console: false, cp: 437}
	if ok, _ := PrepareConsole(c, 1); !ok || len(c.sets) != 0 {
		t.Errorf("pipe: utf8=%v sets=%v", ok, c.sets)
	}
	// Already UTF-8 (Windows Terminal with chcp 65001).
	c = &fakeConsole{console: true, cp: 65001}
	if ok, _ := PrepareConsole(c, 1); !ok || len(c.sets) != 0 {
		t.Errorf("65001: utf8=%v sets=%v", ok, c.sets)
	}
	// A legacy code page (437 US, 936 Chinese GBK) is switched, then restored.
	c = &fakeConsole{console: true, cp: 936}
	ok, restore := PrepareConsole(c, 1)
	if !ok || c.cp != 65001 {
		t.Errorf("936: utf8=%v cp=%d", ok, c.cp)
	}
	restore()
	if c.cp != 936 {
		t.Errorf("the console's code page was not restored: %d", c.cp)
	}
	// A console that refuses: ASCII.
	c = &fakeConsole{console: true, cp: 437, refuse: true}
	if ok, _ := PrepareConsole(c, 1); ok || c.cp != 437 {
		t.Errorf("refused: utf8=%v cp=%d", ok, c.cp)
	}
	// Not Windows.
	if ok, restore := PrepareConsole(nil, 1); !ok || restore == nil {
		t.Error("nil console must mean UTF-8 as is")
	}
}

func TestASCIIWriter(t *testing.T) {
	var b strings.Builder
	w := ASCIIWriter{&b}
	in := "✓ CUDA 12.8 → ok … ✗ 驱动程序 \xff\n"
	n, err := w.Write([]byte(in))
	if err != nil || n != len(in) {
		t.Fatalf("n=%d err=%v", n, err)
	}
	if got, want := b.String(), "+ CUDA 12.8 -> ok ... x ???? ?\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The real console API: a test binary's stdout is a pipe (go test, wine),
// which must be left alone and written as UTF-8.
func TestSystemConsoleOnAPipe(t *testing.T) {
	c := systemConsole()
	if c == nil {
		t.Skip("no console API outside Windows")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if c.IsConsole(w.Fd()) {
		t.Fatal("a pipe is taken for a console")
	}
	if ok, _ := PrepareConsole(c, w.Fd()); !ok {
		t.Error("a pipe must get UTF-8")
	}
}
