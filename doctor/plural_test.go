package doctor

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/machine"
)

// No text in checks.json writes a plural as "GPU(s)" or "entr(ies)": each
// count has a "one" form instead (which a translation can follow).
func TestNoParenthesizedPlurals(t *testing.T) {
	var v any
	if err := json.Unmarshal(checksJSON, &v); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`\w\((s|es|ies)\)`)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(path+"/"+k, e)
			}
		case []any:
			for _, e := range x {
				walk(path, e)
			}
		case string:
			if re.MatchString(x) {
				t.Errorf("%s: %q writes a plural in parentheses; give the message a \"one\" form", path, x)
			}
		}
	}
	walk("", v)
	// The one form is for exactly one: it writes "1", never {count}.
	for _, c := range Catalog() {
		for k, m := range c.Messages {
			if m.One != nil && (strings.Contains(m.One.Summary, "{count}") || m.One.Summary == "") {
				t.Errorf("%s/%s: the one form must be set and must not use {count}", c.ID, k)
			}
		}
	}
}

// The singular text is chosen when the count is 1, the plural otherwise.
func TestPluralFormChosenByCount(t *testing.T) {
	s := &machine.Snapshot{OS: machine.OSInfo{GOOS: "linux"}, Path: []machine.PathEntry{
		{Dir: "/usr/bin", Exists: true}, {Dir: "/opt/gone/bin"},
	}}
	fs := checkPathHygiene(s)
	if len(fs) == 0 || fs[0].Message != "path.hygiene/missing" || fs[0].Summary != "1 PATH entry does not exist (/opt/gone/bin): harmless, but worth cleaning" {
		t.Errorf("one missing entry: %+v", fs)
	}
	s.Path = append(s.Path, machine.PathEntry{Dir: "/opt/gone2/bin"})
	fs = checkPathHygiene(s)
	if len(fs) == 0 || fs[0].Summary != "2 PATH entries do not exist (/opt/gone/bin, /opt/gone2/bin): harmless, but worth cleaning" {
		t.Errorf("two missing entries: %+v", fs)
	}
	if got := emit(s, "cuda.inventory", "ok", "count", "0", "version", "x", "how", "y").Summary; !strings.HasPrefix(got, "0 CUDA toolkits;") {
		t.Errorf("count 0: %q", got)
	}
	if got := emit(s, "cuda.inventory", "ok", "count", "1", "version", "12.4", "how", "PATH").Summary; got != "1 CUDA toolkit; in use: 12.4 (from PATH)" {
		t.Errorf("count 1: %q", got)
	}
}
