package matrixcmd

import (
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/matrix"
)

// legacyBlockers is resolve's printing of blockers before they went through
// the one printer (ui.Printer.Finding), kept to prove the bytes unchanged.
func legacyBlockers(p *ui.Printer, m *matrix.Matrix, bs []matrix.Blocker) {
	for _, b := range bs {
		det := []string{m.Text("cli.fix", "fix", b.Fix)}
		if b.LastResortFix != "" {
			det = append(det, m.Text("cli.last-resort", "fix", b.LastResortFix))
		}
		p.Line(ui.Err, b.Message, det...)
	}
}

// Blockers print byte for byte as before, in English and Chinese, with and
// without a last resort.
func TestBlockersBytesUnchanged(t *testing.T) {
	qs := []matrix.Query{
		{GPUs: []matrix.GPUQuery{{Name: "RTX 4090"}}, OS: "windows", MSVC: "19.40", Toolkits: []string{"12.3"}},
		{GPUs: []matrix.GPUQuery{{Name: "RTX 4090"}}, OS: "windows", MSVC: "19.41", Toolkits: []string{"12.3"}},
		{GPUs: []matrix.GPUQuery{{Name: "GTX 1080 Ti"}}, Toolkits: []string{"13.0"}},
		{GPUs: []matrix.GPUQuery{{Name: "RTX 4090"}}, OS: "linux", GCC: "14", Toolkits: []string{"12.0"}},
	}
	n := 0
	for _, l := range []string{"", "zh-CN"} {
		m := matrix.Default().WithLang(l)
		for i, q := range qs {
			bs := m.Resolve(q).Blockers
			n += len(bs)
			f, got, _ := cmdutil.NewTest(nil, nil)
			printBlockers(ui.NewPrinter(f.IO), m, bs)
			g, want, _ := cmdutil.NewTest(nil, nil)
			legacyBlockers(ui.NewPrinter(g.IO), m, bs)
			if got.String() != want.String() {
				t.Errorf("query %d (%q):\n got:\n%s\nwant:\n%s", i, l, got, want)
			}
		}
	}
	if n < 6 {
		t.Errorf("only %d blockers", n)
	}
}
