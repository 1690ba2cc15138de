package plan

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/testutil"
)

// Every T("key") in the runner's code is defined, every defined key is
// used, and the file is sorted one text a line (reviewable, translatable).
func TestTextKeysUsedAndDefined(t *testing.T) {
	used := map[string]bool{}
	re := regexp.MustCompile(`\bT\("([a-z0-9.-]+)"`)
	filepath.Walk("..", func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			used[m[1]] = true
		}
		return nil
	})
	for k := range used {
		if _, ok := texts()[k]; !ok {
			t.Errorf("key %q used but not in data/text.en.json", k)
		}
	}
	for k := range texts() {
		if !used[k] {
			t.Errorf("key %q defined but never used", k)
		}
	}
	testutil.CheckTextCatalog(t, textJSON)
}

func TestTFillsPlaceholders(t *testing.T) {
	if got := T("reduce.compute", "old", 512, "new", 256); got != "the compute buffer did not fit: -ub 512 → 256" {
		t.Errorf("T = %q", got)
	}
	if got := T("no.such.key"); got != "no.such.key" {
		t.Errorf("unknown key = %q", got)
	}
}
