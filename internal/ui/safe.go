package ui

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Safe makes text from outside llamactl (a model's metadata, a tool's
// output) harmless on a terminal: control characters — the ESC of colour
// and cursor codes, carriage returns, C1 codes — are shown as \xNN or
// \u00NN instead of acting, and invalid UTF-8 bytes as \xNN. Newlines and
// tabs stay unless oneLine is set. Use it on every such string printed as
// text (--json escapes them by itself).
func Safe(s string, oneLine bool) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) && (oneLine || r != '\n' && r != '\t') {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case (r == '\n' || r == '\t') && !oneLine:
			b.WriteRune(r)
		case r < 0x80 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
