package failures

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// stableIDs reads the stable failure IDs listed in
// testdata/logs/failure-ids.md (the first cell of each table row).
func stableIDs(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("../testdata/logs/failure-ids.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `([a-z0-9-]+)` \\|")
	out := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if m := row.FindStringSubmatch(l); m != nil {
			out[m[1]] = true
		}
	}
	if len(out) < 60 {
		t.Fatalf("parsed only %d ids from failure-ids.md", len(out))
	}
	return out
}

// The knowledge base and the list of stable IDs name the same IDs: an ID
// is neither renamed nor dropped without the list saying so.
func TestStableIDsAreTheKnowledgeBase(t *testing.T) {
	kb := Default()
	ids := stableIDs(t)
	for id := range ids {
		if _, ok := kb.Entry(id); !ok {
			t.Errorf("failure-ids.md id %s is not in the knowledge base", id)
		}
	}
	for _, e := range kb.Entries() {
		if !ids[e.ID] {
			t.Errorf("%s is not a stable ID of failure-ids.md (add it there first)", e.ID)
		}
	}
}

func TestDataIsSortedAndComplete(t *testing.T) {
	kb, err := Load(defaultData)
	if err != nil {
		t.Fatal(err)
	}
	stages := map[string]bool{"configure": true, "compile": true, "link": true, "runtime": true, "cli": true}
	platforms := map[string]bool{"all": true, "windows": true, "linux": true, "macos": true}
	prev := ""
	for _, e := range kb.entries {
		if e.ID <= prev {
			t.Errorf("entries not sorted by id: %s after %s", e.ID, prev)
		}
		prev = e.ID
		if e.Title == "" || e.Cause == "" || e.Fix == "" || e.Source == "" || len(e.Commands) == 0 {
			t.Errorf("%s: title, cause, fix, commands and source are required", e.ID)
		}
		if !stages[e.Stage] {
			t.Errorf("%s: stage %q", e.ID, e.Stage)
		}
		if len(e.Platforms) == 0 {
			t.Errorf("%s: no platforms", e.ID)
		}
		for _, p := range e.Platforms {
			if !platforms[p] {
				t.Errorf("%s: platform %q", e.ID, p)
			}
		}
		if e.Severity != SeverityError && e.Severity != SeverityWarning {
			t.Errorf("%s: severity %q", e.ID, e.Severity)
		}
		if len(e.Signature) == 0 && len(e.Derive) == 0 {
			t.Errorf("%s: neither signatures nor a derivation", e.ID)
		}
		for _, s := range e.Signature {
			if s.needle == "" {
				t.Errorf("%s: signature %q has no literal to prefilter on (slow on large logs)", e.ID, s.Re)
			}
		}
		for _, k := range e.Facts {
			found := false
			for _, f := range kb.facts {
				found = found || f.Key == k
			}
			if !found {
				t.Errorf("%s: unknown fact %q", e.ID, k)
			}
		}
	}
	for _, k := range []string{"which_is_why", "no_match", "no_match_next", "first_errors", "label_why", "label_fix", "label_more", "label_patch", "label_source", "line", "facts_context"} {
		if kb.Message(k) == "" {
			t.Errorf("message %s missing", k)
		}
	}
}

func TestLoadRejectsBadData(t *testing.T) {
	cases := map[string]string{
		"not json":        `{`,
		"schema":          `{"schema":2}`,
		"unanchored":      `{"schema":1,"failures":[{"id":"x","signatures":[{"re":"error"}]}]}`,
		"bad regexp":      `{"schema":1,"failures":[{"id":"x","signatures":[{"re":"^(error"}]}]}`,
		"duplicate":       `{"schema":1,"failures":[{"id":"x"},{"id":"x"}]}`,
		"no id":           `{"schema":1,"failures":[{"title":"x"}]}`,
		"bad group":       `{"schema":1,"failures":[{"id":"x","signatures":[{"re":"^a","group":2}]}]}`,
		"bad derive":      `{"schema":1,"failures":[{"id":"x","derive":[{"from":"y","when":"no_nvidia_gpu"}]}]}`,
		"bad when":        `{"schema":1,"failures":[{"id":"x"},{"id":"y","derive":[{"from":"x","when":"moon"}]}]}`,
		"bad symptom":     `{"schema":1,"failures":[{"id":"x","symptom_of":["nope"]}]}`,
		"bad then":        `{"schema":1,"failures":[{"id":"x","signatures":[{"re":"^a","then":"b"}]}]}`,
		"bad unless_prev": `{"schema":1,"failures":[{"id":"x","signatures":[{"re":"^a","unless_prev":"(b"}]}]}`,
		"bad fact log":    `{"schema":1,"facts":[{"key":"k","log":"x"}]}`,
	}
	for name, data := range cases {
		if _, err := Load([]byte(data)); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}

func TestEntryLookup(t *testing.T) {
	e, ok := Default().Entry("nvcc-unsupported-gcc")
	if !ok || e.Title == "" || len(e.Platforms) == 0 {
		t.Fatalf("%+v %v", e, ok)
	}
	if _, ok := Default().Entry("no-such-id"); ok {
		t.Error("found a missing id")
	}
}

func TestNeedleOf(t *testing.T) {
	for expr, want := range map[string]string{
		`^nvcc fatal : Unsupported gpu`:    "nvcc fatal : unsupported gpu",
		`(?:^|\s)cannot find -lcuda(?:$)`:  "cannot find -lcuda",
		`^(?:a|b)`:                         "",
		`^x(?:long literal here)?y`:        "",
		`^CMake Error at .*:`:              "cmake error at ",
		`(?:^|\s)(?:-D)?(?:AMD)?GPU_TARG=`: "gpu_targ=",
	} {
		if got := needleOf(expr); got != want {
			t.Errorf("needleOf(%q) = %q, want %q", expr, got, want)
		}
	}
}
