package buildcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/build"
	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/ui"
)

// legacyDiagnoses is printText's diagnoses before they went through the one
// printer (ui.Printer.Finding), kept to prove the bytes unchanged.
func legacyDiagnoses(pr *ui.Printer, t *lang.Catalog, r *build.Result) {
	ft := failures.Default().Translator(t.Lang())
	for _, d := range r.Diagnoses {
		d = diagnosisIn(ft, d)
		details := []string{t.T("cause", "text", d.Cause), t.T("fix", "text", d.Fix)}
		for _, c := range d.Commands {
			details = append(details, "  "+c)
		}
		details = append(details, d.Advice...)
		if d.ID == plan.VulkanHeadersFailure && len(r.Healed) == 0 {
			details = append(details, t.T("knows-vulkan-headers"))
		}
		pr.Line(ui.Err, d.ID+": "+d.Title, details...)
	}
}

// A failed build's diagnoses print byte for byte as before, in English
// and Chinese: every corpus log's causes, a cause llamactl saw itself
// (prefixed), --heal advice, and the Vulkan headers hint.
func TestDiagnosesBytesUnchanged(t *testing.T) {
	var rs []*build.Result
	logs, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "logs", "*.log"))
	for _, p := range logs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if ds := build.KBDiagnose(string(b)); len(ds) > 0 {
			ds[0].Advice = []string{"llamactl build --heal would change: -DGGML_CUDA_NO_VMM=ON"}
			rs = append(rs, &build.Result{Diagnoses: ds})
		}
	}
	if len(rs) < 20 {
		t.Fatalf("only %d logs diagnosed", len(rs))
	}
	e, ok := failures.Default().Entry(plan.VulkanHeadersFailure)
	if !ok {
		t.Fatalf("no %s entry", plan.VulkanHeadersFailure)
	}
	seen := build.Diagnosis{Finding: failures.Finding{ID: e.ID, Title: e.Title, Cause: "CMake ignored GGML_VULKAN: " + e.Cause, Fix: e.Fix, Commands: e.Commands}}
	rs = append(rs, &build.Result{Diagnoses: []build.Diagnosis{seen}}, &build.Result{Diagnoses: []build.Diagnosis{seen}, Healed: []string{"x"}})
	t.Logf("%d results compared", len(rs))
	for _, l := range []string{lang.EN, lang.ZhCN} {
		t1 := texts(l)
		for i, r := range rs {
			f, got, _ := cmdutil.NewTest(nil, nil)
			printDiagnoses(ui.NewPrinter(f.IO), t1, r)
			g, want, _ := cmdutil.NewTest(nil, nil)
			legacyDiagnoses(ui.NewPrinter(g.IO), t1, r)
			if got.String() != want.String() {
				t.Errorf("result %d (%s):\n got:\n%s\nwant:\n%s", i, l, got, want)
			}
			if l == lang.ZhCN && i == len(rs)-2 && !strings.Contains(got.String(), "修复：") {
				t.Errorf("zh-CN diagnosis lacks its fix label:\n%s", got)
			}
		}
	}
}
