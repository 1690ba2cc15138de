package doctor

import (
	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/matrix"
)

// The lines doctor takes from the compatibility matrix (cuda.select's
// "message → fix" details) are English in findings and --json. For the
// human report they are rendered again in the report's language from their
// message IDs (matrix.Translate), so no English string is matched.

// ForSnapshot is t with the translations of the matrix lines of s, used by
// Reason. English, or a snapshot without NVIDIA GPUs, returns t.
func (t *Translator) ForSnapshot(s *machine.Snapshot) *Translator {
	if t.ov == nil || s == nil {
		return t
	}
	nv := nvidiaGPUs(s)
	if len(nv) == 0 {
		return t
	}
	c := *t
	c.matrix = matrixLines(MatrixQuery(s, nv), t.Lang)
	return &c
}

// matrixLines maps every English text of Resolve(q) (a blocker's
// message, fix and "message → fix" line, a reason) to its translation.
func matrixLines(q matrix.Query, lang string) map[string]string {
	m := matrix.Default()
	en := m.Resolve(q)
	out := m.Translate(en, lang)
	for _, b := range en.Blockers {
		out[b.Message+" → "+b.Fix] = out[b.Message] + " → " + out[b.Fix]
	}
	return out
}
