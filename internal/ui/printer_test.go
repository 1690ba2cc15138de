package ui

import (
	"bytes"
	"strings"
	"testing"
)

func TestPlainOutputHasMarksAndNoEscapes(t *testing.T) {
	var b bytes.Buffer
	p := newPrinter(&b, false)
	p.Line(OK, "nvcc 12.4 found")
	p.Line(Warn, "two CUDA toolkits on PATH", "first: C:\\CUDA\\v12.2\\bin", "CUDA_PATH: C:\\CUDA\\v12.4")
	p.Line(Err, "cl.exe not found")
	p.Line(Skip, "OpenCL")
	out := b.String()
	for _, want := range []string{"✓ nvcc 12.4 found", "! two CUDA toolkits on PATH", "    first: C:\\CUDA\\v12.2\\bin", "✗ cl.exe not found", "- OpenCL"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("plain output contains ANSI escapes: %q", out)
	}
}

func TestColorOutputIsStyled(t *testing.T) {
	var b bytes.Buffer
	p := newPrinter(&b, true)
	p.Line(Err, "broken")
	if !strings.Contains(b.String(), "\x1b[") {
		t.Fatalf("coloured output has no escapes: %q", b.String())
	}
}

func TestPlainTableAlignsByDisplayWidth(t *testing.T) {
	got := PlainTable([]string{"GPU", "CC"}, [][]string{{"RTX 4090", "8.9"}, {"✓ H200", "9.0"}})
	lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines: %q", len(lines), got)
	}
	// The CC column starts at the same display column on every line.
	col := -1
	for _, l := range lines {
		idx := strings.LastIndex(l, "  ")
		w := len([]rune(l[:idx]))
		if col == -1 {
			col = w
		} else if w != col {
			t.Fatalf("columns not aligned:\n%s", got)
		}
	}
}

func TestIOStreamsColorRules(t *testing.T) {
	s := &IOStreams{OutTTY: true}
	if !s.Color() {
		t.Fatal("tty without NO_COLOR should be coloured")
	}
	s.NoColor = true
	if s.Color() {
		t.Fatal("NO_COLOR must win")
	}
	sys := System(func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	})
	if sys.Color() {
		t.Fatal("System with NO_COLOR=1 must not colour")
	}
}

func TestWriteJSONKeepsHTMLCharacters(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, map[string]any{"schema": 1, "fix": "use g++-11 && retry <now>"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "g++-11 && retry <now>") {
		t.Fatalf("escaped: %s", b.String())
	}
}
