package doctor

import (
	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/matrix"
)

// The lines doctor takes from the compatibility matrix (cuda.select's
// "message → fix" details) are English in findings and --json. For the
// human report, the matrix is asked the same question again in the
// report's language (matrix.WithLang) and each English line is paired with
// its translation: Resolve is deterministic, so both answers have the same
// blockers and reasons in the same order.

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
	en := matrix.Default().Resolve(q)
	tr := matrix.Default().WithLang(lang).Resolve(q)
	out := map[string]string{}
	add := func(e, t string) {
		if e != "" && t != "" {
			out[e] = t
		}
	}
	pairs := func(e, t []string) {
		if len(e) == len(t) {
			for i := range e {
				add(e[i], t[i])
			}
		}
	}
	if len(en.Blockers) == len(tr.Blockers) {
		for i, b := range en.Blockers {
			x := tr.Blockers[i]
			if b.ID != x.ID {
				continue
			}
			add(b.Message+" → "+b.Fix, x.Message+" → "+x.Fix)
			add(b.Message, x.Message)
			add(b.Fix, x.Fix)
			add(b.LastResortFix, x.LastResortFix)
		}
	}
	pairs(en.Reasons, tr.Reasons)
	if len(en.Rejected) == len(tr.Rejected) {
		for i := range en.Rejected {
			pairs(en.Rejected[i].Reasons, tr.Rejected[i].Reasons)
		}
	}
	return out
}
