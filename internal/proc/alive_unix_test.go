//go:build !windows

package proc

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// alive reports whether process pid still runs (a zombie does not).
func alive(t *testing.T, pid int) bool {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to look for the grandchild")
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(b), ") Z ")
}
