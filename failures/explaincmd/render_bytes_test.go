package explaincmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/ui"
)

// legacyRender is explain's printing of findings before they went through
// the one printer (ui.Printer.Finding), kept to prove the bytes unchanged.
func legacyRender(io *ui.IOStreams, kb *failures.Translator, t *lang.Catalog, d failures.Diagnosis) {
	p := ui.NewPrinter(io)
	for i, f := range d.Findings {
		f = kb.Finding(f)
		if i > 0 {
			p.Println()
		}
		st := ui.Err
		if f.Severity == failures.SeverityWarning {
			st = ui.Warn
		}
		var det []string
		if f.Excerpt != "" {
			var ex []string
			for _, l := range strings.Split(f.Excerpt, "\n") {
				ex = append(ex, "> "+l)
			}
			det = append(det, strings.Join(ex, "\n"))
		}
		title := f.Title
		if f.Confidence == failures.ConfidenceProbable {
			title = kb.Message("probably") + ": " + title
			det = append(det, kb.Message("probable_note"))
		}
		det = append(det, kb.Message("label_why")+": "+f.Cause)
		if fs := kb.FactSentenceFor(f.ID, f.Facts); fs != "" {
			det = append(det, fs)
		}
		det = append(det, kb.Message("label_fix")+": "+f.Fix)
		for _, c := range f.Commands {
			det = append(det, "  $ "+c)
		}
		if f.Patch != "" {
			det = append(det, kb.Message("label_patch")+": llamactl patches show "+f.Patch)
		}
		if io.Verbose {
			det = append(det, kb.Message("label_source")+": "+f.Source)
		}
		det = append(det, kb.Message("label_more")+": docs/support.md#"+f.ID)
		p.Line(st, fmt.Sprintf("%s  %s (%s %s)", p.Bold(f.ID), title, kb.Message("line"), lineList(t, f.Lines)), det...)
	}
}

// explain's findings print byte for byte as before on every log of the
// corpus, in English and Chinese, plain and --verbose.
func TestRenderBytesUnchanged(t *testing.T) {
	var logs []string
	err := filepath.WalkDir(filepath.Join("..", "..", "testdata", "logs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".log") || strings.HasSuffix(p, ".txt")) {
			logs = append(logs, p)
		}
		return err
	})
	if err != nil || len(logs) < 50 {
		t.Fatalf("%d logs: %v", len(logs), err)
	}
	kb := failures.Default()
	n := 0
	for _, path := range logs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		d := kb.DiagnoseString(string(b))
		if len(d.Findings) == 0 {
			continue
		}
		n++
		for _, l := range []string{lang.EN, lang.ZhCN} {
			for _, verbose := range []bool{false, true} {
				f, got, _ := cmdutil.NewTest(nil, nil)
				f.IO.Verbose = verbose
				render(f.IO, kb.Translator(l), texts(l), "x", d)
				g, want, _ := cmdutil.NewTest(nil, nil)
				g.IO.Verbose = verbose
				legacyRender(g.IO, kb.Translator(l), texts(l), d)
				if got.String() != want.String() {
					t.Errorf("%s (%s, verbose %v):\n got:\n%s\nwant:\n%s", path, l, verbose, got, want)
				}
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d logs have findings", n)
	}
	t.Logf("%d logs with findings compared", n)
}
