package plan

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/testutil"
)

// Every T("key") in the runner's code is defined, every defined key is
// used, and the file is sorted one text a line (reviewable, translatable).
func TestTextKeysUsedAndDefined(t *testing.T) {
	used := map[string]bool{}
	// T("k") here, plan.T("k") or pt.T("k") (the plan's texts in the
	// output language) in runcmd; runcmd's own texts are t.T.
	re := regexp.MustCompile(`(?:^|[^.\w]|\bplan\.|\bpt\.)T\("([a-z0-9.-]+)"`)
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

// text.zh-CN.json translates every sentence, keeps the placeholders and
// leaves no English sentence; a reason filled in English comes back in
// Chinese (runcmd prints the plan's reasons that way).
func TestZhCNTexts(t *testing.T) {
	zh, err := lang.ParseOverlay("zh", textZhCN)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckOverlay(t, texts(), zh, nil)
	testutil.CheckTextCatalog(t, textZhCN)
	testutil.CheckLines(t, texts(), zh, Texts(lang.ZhCN).Line, nil)
	c := Texts(lang.ZhCN)
	why := T("fit.device-short", "device", "CUDA0", "need", 9000, "free", 7800) + "; " + T("fit.host-short", "need", 20000, "free", 16000)
	if got := c.Line(T("reason.does-not-fit", "why", why)); got != "放不下：CUDA0 含余量需要 9000 MiB，可用 7800 MiB；主机含余量需要 20000 MiB，可用 16000 MiB" {
		t.Errorf("nested reasons: %q", got)
	}
	if got := Texts("").Line(why); got != why {
		t.Errorf("English catalog changed a line: %q", got)
	}
}
