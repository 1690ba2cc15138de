package doctor

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/llamactl/llamactl/doctor/probe"
)

// TestMessageCoverage lists the finding texts no recorded machine produces
// (COVERAGE=1 prints them; the list is in the final report).
func TestMessageCoverage(t *testing.T) {
	if os.Getenv("COVERAGE") == "" {
		t.Skip("set COVERAGE=1 to list finding texts no scenario or recording produces")
	}
	seen := map[string]bool{}
	for _, sc := range loadScenarios(t) {
		s := sc.Snapshot
		for _, f := range Run(context.Background(), &s, Options{Backend: sc.Backend}) {
			seen[f.Message] = true
		}
	}
	dirs, _ := filepath.Glob("../testdata/doctor/recordings/*")
	for _, d := range dirs {
		if s, err := probe.GatherRecording(d); err == nil {
			for _, b := range []string{"", "opencl"} {
				for _, f := range Run(context.Background(), s, Options{Backend: b}) {
					seen[f.Message] = true
				}
			}
		}
	}
	var missing []string
	total := 0
	for _, c := range Catalog() {
		for k := range c.Messages {
			total++
			if !seen[c.ID+"/"+k] {
				missing = append(missing, c.ID+"/"+k)
			}
		}
	}
	sort.Strings(missing)
	t.Logf("%d of %d finding texts produced by recorded machines; not produced:", total-len(missing), total)
	for _, m := range missing {
		t.Log("  ", m)
	}
}
