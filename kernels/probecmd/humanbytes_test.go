package probecmd

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/kernels"
)

var updateHuman = flag.Bool("update-human", false, "rewrite testdata/finding/probe-human.golden")

// humanReport is a probe report with every kind of finding: CUDA compiled
// but found no device (a warning with a failure ID and a fix), the OpenCL
// kernel passing, llama.cpp refusing a CPU device, and a skipped probe.
func humanReport() kernels.Report {
	const dev = "cpu-skylake-avx512-AMD EPYC"
	cl := map[string]string{"device": dev, "type": "CPU", "opencl_c": "OpenCL C 1.2 PoCL", "platform": "Portable Computing Language"}
	st := []kernels.StageResult{
		{Kind: "cuda", Stage: kernels.StageCompile, OK: true},
		{Kind: "cuda", Stage: kernels.StageLink, OK: true},
		{Kind: "cuda", Stage: kernels.StageLoad, FailureID: "cuda-no-device", Detail: "no CUDA-capable device is detected (cudaErrorNoDevice)",
			Facts: map[string]string{"nvcc_version": "11.8.89", "host": "/usr/bin/g++-11", "archs": "90-real"}},
		{Kind: "opencl", Stage: kernels.StageEnumerate, OK: true, Detail: "1 platform, 1 device through libOpenCL.so.1"},
		{Kind: "opencl", Stage: kernels.StageBuild, Device: dev, OK: true, Facts: cl},
		{Kind: "opencl", Stage: kernels.StageRun, Device: dev, OK: true, Facts: cl},
		{Kind: "opencl", Stage: kernels.StageVerify, Device: dev, OK: true, Detail: "1048576 elements correct", Facts: cl},
		{Kind: "opencl", Stage: kernels.StageAccept, Device: dev, FailureID: "opencl-unsupported-gpu", Detail: "it is not a GPU (CPU)",
			Facts: map[string]string{"device": dev, "reason": "it is not a GPU (CPU)", "type": "CPU", "opencl_c": "OpenCL C 1.2 PoCL"}},
	}
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
