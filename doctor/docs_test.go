package doctor

import (
	"os"
	"strings"
	"testing"
)

// docs/doctor.md documents every check and every finding text.
func TestDocsListEveryCheck(t *testing.T) {
	b, err := os.ReadFile("../docs/doctor.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, c := range Catalog() {
		if !strings.Contains(doc, "| `"+c.ID+"` |") {
			t.Errorf("docs/doctor.md lacks check %s", c.ID)
		}
		for k, m := range c.Messages {
			if !strings.Contains(doc, "`"+k+"`: "+strings.ReplaceAll(m.Summary, "|", `\|`)) {
				t.Errorf("docs/doctor.md lacks the current text of %s/%s", c.ID, k)
			}
			if m.One != nil && !strings.Contains(doc, "(one: "+strings.ReplaceAll(m.One.Summary, "|", `\|`)+")") {
				t.Errorf("docs/doctor.md lacks the singular text of %s/%s", c.ID, k)
			}
		}
	}
}

// UPDATE_DOCS=1 go test ./doctor -run TestRegenerateDocsTables rewrites the
// check tables of docs/doctor.md from data/checks.json.
func TestRegenerateDocsTables(t *testing.T) {
	if os.Getenv("UPDATE_DOCS") == "" {
		t.Skip("set UPDATE_DOCS=1 to rewrite docs/doctor.md's check tables")
	}
	b, err := os.ReadFile("../docs/doctor.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	const start, end = "from the snapshot. Checks that do not apply", "\n### Skip reasons"
	i, j := strings.Index(doc, start), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatal("markers not found in docs/doctor.md")
	}
	i = strings.Index(doc[i:], "\n\n") + i // keep the intro paragraph
	var sb strings.Builder
	sec := ""
	for _, c := range Catalog() {
		if c.Section != sec {
			sec = c.Section
			sb.WriteString("\n\n### " + sec + ". " + SectionTitle(sec) + "\n\n")
			sb.WriteString("| ID | platforms | what it means | findings (status: summary → fix) |\n|---|---|---|---|\n")
		}
		var rows []string
		for _, k := range sortedKeys(c.Messages) {
			m := c.Messages[k]
			r := "**" + string(m.Status) + "** `" + k + "`: " + m.Summary
			if m.One != nil {
				r += " (one: " + m.One.Summary + ")"
			}
			if m.Fix != "" {
				r += " → " + m.Fix
			}
			rows = append(rows, strings.ReplaceAll(r, "|", `\|`))
		}
		sb.WriteString("| `" + c.ID + "` | " + strings.Join(c.Platforms, ", ") + " | " + strings.ReplaceAll(c.Help, "|", "/") + " | " + strings.Join(rows, "<br>") + " |\n")
	}
	doc = doc[:i] + strings.TrimRight(sb.String(), "\n") + "\n" + doc[j:]
	if err := os.WriteFile("../docs/doctor.md", []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}
