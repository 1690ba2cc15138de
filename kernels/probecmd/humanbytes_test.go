package probecmd

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/kernels"
	"github.com/llamactl/llamactl/kernels/kernelstest"
)

var updateHuman = flag.Bool("update-human", false, "rewrite testdata/finding/probe-human.golden")

// humanReport is a probe report with every kind of finding: CUDA compiled
// but found no device (a warning with a failure ID and a fix), the OpenCL
// kernel passing, llama.cpp refusing a CPU device, and a skipped probe.
func humanReport() kernels.Report {
	st := kernelstest.CIStages("no CUDA-capable device is detected (cudaErrorNoDevice)")
	fs := kernels.Findings(st)
	skip := []kernels.StageResult{{Kind: "cuda", Stage: kernels.StageCompile, Skipped: true, Detail: "no nvcc", Facts: map[string]string{"skip": "skipped-no-nvcc"}}}
	fs = append(fs, kernels.Findings(skip)...)
	return kernels.Report{Stages: st, Findings: fs}
}

// probe's human findings, in English and Chinese, are byte for byte what
// they were before they went through the one printer (ui.Printer.Finding).
func TestHumanFindingsBytesUnchanged(t *testing.T) {
	var got []byte
	for _, l := range []string{lang.EN, lang.ZhCN} {
		f, out, _ := cmdutil.NewTest(nil, nil)
		render(f, texts(l), kernels.NewTranslator(l), humanReport())
		got = append(got, out.String()...)
	}
	golden := filepath.Join("..", "..", "testdata", "finding", "probe-human.golden")
	if *updateHuman {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("probe's human output changed:\n got:\n%s\nwant:\n%s", got, want)
	}
}
