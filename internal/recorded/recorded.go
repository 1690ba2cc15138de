// Package recorded reads the recorded tool outputs that recordings and
// tests replay: a header of "# source:", "# date:", "# tool:" ... lines
// ended by "# ---", then the output verbatim.
package recorded

import "strings"

// Body drops a recorded output's header: the "# key: value" lines up to and
// including the first line that is exactly "# ---"
// (the recorded-output header format of testdata/doctor/recordings). Text without
// such a header is returned whole.
func Body(s string) string {
	if !strings.HasPrefix(s, "# ") {
		return s
	}
	if i := strings.Index(s, "\n# ---\n"); i >= 0 {
		return s[i+len("\n# ---\n"):]
	}
	return s
}
