package failures

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the failure index in docs/support.md")

const supportDoc = "../docs/support.md"

// TestSupportDocIndex fails when docs/support.md's failure index drifts from
// the knowledge base; -update regenerates it.
func TestSupportDocIndex(t *testing.T) {
	b, err := os.ReadFile(supportDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, IndexBegin), strings.Index(doc, IndexEnd)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the index markers", supportDoc)
	}
	want := "\n" + Default().IndexMarkdown() + "\n"
	got := doc[i+len(IndexBegin) : j]
	if got == want {
		return
	}
	if *update {
		doc = doc[:i+len(IndexBegin)] + want + doc[j:]
		if err := os.WriteFile(supportDoc, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/support.md's failure index is out of date: run go test ./failures -run TestSupportDocIndex -update")
}

func TestIndexMarkdownHasEveryID(t *testing.T) {
	md := Default().IndexMarkdown()
	for _, e := range Default().Entries() {
		if !strings.Contains(md, "\n### `"+e.ID+"`\n") || !strings.Contains(md, "(#"+e.ID+")") {
			t.Errorf("%s has no section", e.ID)
		}
	}
}
