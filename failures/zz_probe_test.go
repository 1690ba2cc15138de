package failures

import (
	"os"
	"strings"
	"testing"
)

func TestZZProbe(t *testing.T) {
	b, _ := os.ReadFile("/tmp/he2-probe.txt")
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		d := Default().DiagnoseString(strings.ReplaceAll(l, `\n`, "\n") + "\n")
		t.Logf("%-40s <- %s", brief(d.Findings), l)
	}
}
