package doctorcmd_test

import (
	"strings"
	"testing"
)

// The human report reads right for the snapshot's OS: no "Visual Studio"
// heading on Linux, and the summary line counts in words ("1 warning").
func TestRenderReadsRight(t *testing.T) {
	_, out, _ := execute(t, "doctor", "--replay", snaps+"linux-ci-debian-nvcc11.8-gcc12.json")
	if strings.Contains(out, "Visual Studio") || !strings.Contains(out, "Compilers & build tools") {
		t.Errorf("Linux report headings:\n%s", out)
	}
	if strings.Contains(out, "(s)") || strings.Contains(out, "(ies)") {
		t.Errorf("parenthesized plural in:\n%s", out)
	}
	_, out, _ = execute(t, "doctor", "--replay", snaps+"win-vs2022-17.11-cuda12.3-rtx4060.json")
	if !strings.Contains(out, "Visual Studio & build tools") {
		t.Errorf("Windows report lacks the Visual Studio heading:\n%s", out)
	}
	if strings.Contains(out, "(s)") || strings.Contains(out, "(ies)") {
		t.Errorf("parenthesized plural in:\n%s", out)
	}
}
