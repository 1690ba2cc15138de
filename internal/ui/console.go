package ui

import (
	"io"
	"strings"
	"unicode/utf8"
)

// codePageUTF8 is Windows' UTF-8 code page (chcp 65001).
const codePageUTF8 = 65001

// Console is the part of the Windows console API the output set-up needs.
// The real one (systemConsole) exists on Windows only; tests use a fake.
type Console interface {
	// IsConsole says whether fd is a console (not a pipe or a file).
	IsConsole(fd uintptr) bool
	// OutputCP is the console's output code page (437, 936, 65001...).
	OutputCP() (uint32, error)
	// SetOutputCP switches the console's output code page.
	SetOutputCP(cp uint32) error
}

// PrepareConsole makes a Windows console show UTF-8 text: a console whose
// output code page is a legacy one (437, 850, 936...) is switched to 65001,
// and restore puts the old code page back (the console is the user's shell's
// too). utf8 is false only for a console that refused the switch: the
// caller then writes ASCII (ASCIIWriter) and English. A pipe or a file gets
// the UTF-8 bytes unchanged; c == nil (not Windows) changes nothing.
func PrepareConsole(c Console, fd uintptr) (utf8 bool, restore func()) {
	restore = func() {}
	if c == nil || !c.IsConsole(fd) {
		return true, restore
	}
	cp, err := c.OutputCP()
	if err == nil && cp == codePageUTF8 {
		return true, restore
	}
	if err := c.SetOutputCP(codePageUTF8); err != nil {
		return false, restore
	}
	if now, err := c.OutputCP(); err != nil || now != codePageUTF8 {
		return false, restore
	}
	if cp != 0 {
		restore = func() { _ = c.SetOutputCP(cp) }
	}
	return true, restore
}

// asciiFor are the non-ASCII characters llamactl's English texts use, with
// their ASCII stand-ins for a console that cannot show UTF-8.
var asciiFor = strings.NewReplacer(
	"✓", "+", "✗", "x", "→", "->", "←", "<-", "…", "...", "—", "-", "–", "-",
	"“", `"`, "”", `"`, "‘", "'", "’", "'", "×", "x", "≥", ">=", "≤", "<=", "·", "-", "•", "*",
)

// ASCIIWriter writes text to a console that cannot show UTF-8: the marks
// and arrows become ASCII, any other non-ASCII character '?'.
type ASCIIWriter struct{ W io.Writer }

func (a ASCIIWriter) Write(p []byte) (int, error) {
	s := asciiFor.Replace(string(p))
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			b.WriteByte('?')
		case r < 0x80:
			b.WriteRune(r)
		default:
			b.WriteByte('?')
		}
	}
	if _, err := io.WriteString(a.W, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}
