package matrix

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/testutil"
)

// literal tokens a note's translation keeps: versions, sm_ targets,
// driver branches and field names.
var noteLiteral = regexp.MustCompile(`\bsm_[0-9a-z]+|\b\d+(?:\.\d+)+\b|\bR\d{3}\b|\b[a-z]+_[a-z_]+\b`)

// data/notes.zh-CN.json translates every note and uncertain reason of
// toolkits.json (none stale), keeps their versions and targets, leaves no
// English sentence, and a zh-CN view shows them.
func TestNotesZhCN(t *testing.T) {
	m := Default()
	zh := m.notes["zh-CN"]
	if len(zh) == 0 {
		t.Fatal("no data/notes.zh-CN.json loaded")
	}
	b, err := dataFS.ReadFile("data/notes.zh-CN.json")
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckTextCatalog(t, b)
	used := map[string]bool{}
	for _, tk := range m.Toolkits {
		texts := append([]string{}, tk.UncertainReasons...)
		if tk.Notes != "" {
			texts = append(texts, tk.Notes)
		}
		for _, en := range texts {
			used[en] = true
			z, ok := zh[en]
			if !ok {
				t.Errorf("%s: no translation of %q", tk.Version, en)
				continue
			}
			if w := testutil.EnglishPhrase(z, "Windows on Arm"); w != "" {
				t.Errorf("English left (%q): %s", w, z)
			}
			want, got := noteLiteral.FindAllString(en, -1), noteLiteral.FindAllString(z, -1)
			sort.Strings(want)
			sort.Strings(got)
			if strings.Join(dedupe(want), " ") != strings.Join(dedupe(got), " ") {
				t.Errorf("versions and targets differ:\n  en %v: %s\n  zh %v: %s", dedupe(want), en, dedupe(got), z)
			}
		}
	}
	for en := range zh {
		if !used[en] {
			t.Errorf("notes.zh-CN.json has %q, which no toolkit has (stale)", en)
		}
	}
	v := m.WithLang("zh-CN")
	en := "no nvcc deprecation warning for any architecture found for 12.0-12.6 (not verified)"
	if v.Note(en) == en || m.Note(en) != en {
		t.Errorf("zh-CN view %q, English %q", v.Note(en), m.Note(en))
	}
}

func dedupe(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}
