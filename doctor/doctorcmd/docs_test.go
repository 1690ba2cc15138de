package doctorcmd_test

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/doctor/doctorcmd"
)

// jsonFields are the top-level keys of doctor's --json document.
func jsonFields() []string {
	var out []string
	rt := reflect.TypeOf(doctorcmd.Doc{})
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// Every top-level field of the --json document has a row in docs/doctor.md's
// field table and is named in docs/json.md's doctor row.
func TestDocsNameEveryJSONField(t *testing.T) {
	doc, err := os.ReadFile("../../docs/doctor.md")
	if err != nil {
		t.Fatal(err)
	}
	idx, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(string(idx), "\n") {
		if strings.HasPrefix(l, "| `llamactl doctor` |") {
			row = l
		}
	}
	if row == "" {
		t.Fatal("docs/json.md has no `llamactl doctor` row")
	}
	for _, f := range jsonFields() {
		if f == "schema" {
			continue // the common field, documented once in json.md
		}
		if !regexp.MustCompile("\\| `" + regexp.QuoteMeta(f) + "(\\[\\])?`").Match(doc) {
			t.Errorf("docs/doctor.md's field table lacks `%s`", f)
		}
		if !strings.Contains(row, "`"+f+"`") {
			t.Errorf("docs/json.md's doctor row lacks `%s`", f)
		}
	}
}

// exampleSummary is the summary of the example document in docs/doctor.md.
func exampleSummary(t testing.TB) doctorcmd.Summary {
	b, err := os.ReadFile("../../docs/doctor.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "## The `--json` document")
	if !ok {
		t.Fatal("no JSON section in docs/doctor.md")
	}
	_, rest, _ = strings.Cut(rest, "```json\n")
	block, _, _ := strings.Cut(rest, "```")
	var d doctorcmd.Doc
	if err := json.Unmarshal([]byte(block), &d); err != nil {
		t.Fatalf("the example is not valid JSON: %v", err)
	}
	return d.Summary
}
