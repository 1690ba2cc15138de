package doctor

import (
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/matrix"
)

// doctor's language codes are internal/lang's (doctorcmd picks them there).
func TestLangCodesShared(t *testing.T) {
	if LangEN != lang.EN || LangZhCN != lang.ZhCN {
		t.Errorf("doctor %q/%q, internal/lang %q/%q", LangEN, LangZhCN, lang.EN, lang.ZhCN)
	}
}

// matrixLines pairs each English matrix line with its zh-CN form.
func TestMatrixLines(t *testing.T) {
	q := matrix.Query{OS: "windows", Driver: "560.94", MSVC: "19.41.34123", GPUs: []matrix.GPUQuery{{Name: "NVIDIA GeForce RTX 4060", CC: "8.9"}}, Toolkits: []string{"12.3.107"}}
	en := matrix.Default().Resolve(q)
	lines := matrixLines(q, LangZhCN)
	if len(en.Blockers) == 0 || len(en.Reasons) == 0 {
		t.Fatalf("scenario has no blockers or reasons: %+v", en)
	}
	b := en.Blockers[0]
	tr := NewTranslator(LangZhCN)
	tr.matrix = lines
	if got := tr.Reason(b.Message + " → " + b.Fix); !strings.Contains(got, "来说太新") || !strings.Contains(got, " → 使用 CUDA ≥ 12.4") {
		t.Errorf("blocker line: %q", got)
	}
	for _, r := range en.Reasons {
		if got := tr.Reason(r); got == r || got == "" {
			t.Errorf("reason %q not translated", r)
		}
	}
	// English has no overlay, so no lines: ForSnapshot returns t itself.
	if e := NewTranslator(LangEN); e.ForSnapshot(nil) != e {
		t.Error("English ForSnapshot made a new translator")
	}
	if got := NewTranslator(LangEN).Reason(b.Message); got != b.Message {
		t.Errorf("English changed a matrix line: %q", got)
	}
}
