package doctor

import (
	"os"
	"regexp"
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

// "What is not covered" lists only checks that are not in the catalog: a
// check with documented findings is covered (nv.cuda-init reports --probe).
func TestDocsNotCoveredAreNotImplemented(t *testing.T) {
	b, err := os.ReadFile("../docs/doctor.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "## What is not covered")
	if !ok {
		t.Fatal("docs/doctor.md has no 'What is not covered' section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var bullet string
	for _, item := range strings.Split(sec, "\n* ") {
		if strings.HasPrefix(strings.TrimSpace(item), "Reference catalog checks that are not implemented") {
			bullet = item
		}
	}
	if bullet == "" {
		t.Fatal("no 'Reference catalog checks that are not implemented' bullet")
	}
	ids := regexp.MustCompile("`([a-z]+\\.[a-z0-9-]+)`").FindAllStringSubmatch(bullet, -1)
	if len(ids) == 0 {
		t.Fatal("the bullet names no check")
	}
	for _, m := range ids {
		if _, ok := Info(m[1]); ok {
			t.Errorf("docs/doctor.md says %s is not covered, but it is a check with documented findings", m[1])
		}
	}
}
