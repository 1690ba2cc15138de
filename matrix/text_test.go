package matrix

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/testutil"
)

// Every sentence lives in data/text.en.json under a stable key (so a
// translation can follow): the code must only use keys that exist, and the
// data must hold no sentence the code no longer uses.
func TestTextKeysUsedAndDefined(t *testing.T) {
	m := Default()
	lit := regexp.MustCompile(`"([a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+)"`)
	used := map[string]bool{}
	var files []string
	for _, glob := range []string{"*.go", "matrixcmd/*.go"} {
		fs, _ := filepath.Glob(glob)
		files = append(files, fs...)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, mm := range lit.FindAllStringSubmatch(string(b), -1) {
			k := mm[1]
			if strings.HasSuffix(k, ".json") || strings.HasPrefix(k, "github.com") {
				continue
			}
			used[k] = true
			if _, ok := m.texts[k]; !ok {
				t.Errorf("%s uses text key %q, which data/text.en.json lacks", f, k)
			}
		}
	}
	// Keys built from a blocker ID (checkHost: id+".message").
	for _, id := range []string{BlockGCCTooNew, BlockClangTooNew} {
		used[id+".message"], used[id+".fix"] = true, true
	}
	for k := range m.texts {
		if !used[k] {
			t.Errorf("text %q is not used by the code", k)
		}
	}
	if len(used) < 50 {
		t.Errorf("only %d text keys found in the code", len(used))
	}
}

func TestTextFileSortedOneALine(t *testing.T) {
	b, err := dataFS.ReadFile("data/text.en.json")
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckTextCatalog(t, b)
}

func TestTextFillsPlaceholders(t *testing.T) {
	m := Default()
	if got := m.Text("gpu-arch-too-new.fix", "first", "12.8"); got != "use CUDA ≥ 12.8" {
		t.Errorf("got %q", got)
	}
	if got := m.Text("no-such-key"); got != "no-such-key" {
		t.Errorf("missing key should render as itself, got %q", got)
	}
}
