package doctorcmd

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/kernels"
	"github.com/llamactl/llamactl/kernels/kernelstest"
	"github.com/llamactl/llamactl/machine"
)

// doctorProbeHuman is `doctor --probe [--lang l]`'s human output on the
// GPU-less CI machine's snapshot with the stages the real probe gave there
// (CUDA compiled but found no device; OpenCL on PoCL's CPU device).
func doctorProbeHuman(t *testing.T, l string) string {
	t.Helper()
	s, err := machine.Load("../../testdata/doctor/snapshots/linux-ci-debian-nvcc11.8-gcc12.json")
	if err != nil {
		t.Fatal(err)
	}
	f, out, _ := cmdutil.NewTest(nil, nil)
	f.IO.Verbose = true // OK findings show their stage lines
	o := &Options{F: f, Probe: true, Lang: l,
		Gather: func(context.Context) *machine.Snapshot { return s },
		Kernels: func(_ context.Context, _ *machine.Snapshot, sel doctor.Selection) (kernels.Report, error) {
			st := kernelstest.CIStages("no CUDA-capable device is detected (cudaErrorNoDevice) in cudaGetDeviceCount(&count)")
			return kernels.Report{Stages: st, Findings: kernels.Findings(st)}, nil
		}}
	if err := validateAndRun(context.Background(), o); err != nil && !strings.Contains(err.Error(), "exit") {
		t.Fatalf("run: %v", err)
	}
	return out.String()
}

// probeSection is the report's "Kernel probes" section.
func probeSection(t *testing.T, out, heading string) string {
	t.Helper()
	i := strings.Index(out, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("no %q section in:\n%s", heading, out)
	}
	rest := out[i:]
	if j := strings.Index(rest, "\n\n"); j > 0 {
		rest = rest[:j]
	}
	return rest
}

// `doctor --probe --lang zh-CN` prints the probe's findings in Chinese (the
// kernels overlay, by message ID), its fix too; English keeps English.
func TestDoctorProbeFindingsInChinese(t *testing.T) {
	en := probeSection(t, doctorProbeHuman(t, "en"), "Kernel probes")
	if !strings.Contains(en, "CUDA probe:") {
		t.Fatalf("English probe section:\n%s", en)
	}
	zh := probeSection(t, doctorProbeHuman(t, "zh-CN"), "内核探测")
	for _, want := range []string{"CUDA 探测", "✓ 编译", "✓ 链接", "✗ 加载: no CUDA-capable device", "→ 如果", "OpenCL 探测", "✓ 验证: 1048576 个元素全部正确", "它不是 GPU（CPU）"} {
		if !strings.Contains(zh, want) {
			t.Errorf("zh-CN probe section lacks %q:\n%s", want, zh)
		}
	}
	// No English sentence is left: only commands, IDs, paths, product names
	// and the tools' own words (the CUDA runtime's error) are Latin; three
	// English words in a row make a sentence.
	sentence := regexp.MustCompile(`\b[A-Za-z]{2,} [a-z]{2,} [a-z]{2,}\b`)
	for _, line := range strings.Split(zh, "\n") {
		if strings.Contains(line, "cudaErrorNoDevice") || strings.Contains(line, "[probe.") {
			continue
		}
		if m := sentence.FindString(line); m != "" {
			t.Errorf("English left in %q (%q)", line, m)
		}
	}
}

// A probe that did not run (no nvcc) reads as its own summary in doctor,
// not as an empty "<title>: skipped, <reason>", in both languages.
func TestDoctorSkippedProbeFinding(t *testing.T) {
	s, err := machine.Load("../../testdata/doctor/snapshots/linux-ci-debian-nvcc11.8-gcc12.json")
	if err != nil {
		t.Fatal(err)
	}
	for l, want := range map[string]string{"en": "- CUDA probe skipped: no nvcc found\n", "zh-CN": "- 已跳过 CUDA 探测：没有找到 nvcc\n"} {
		f, out, _ := cmdutil.NewTest(nil, nil)
		o := &Options{F: f, Probe: true, Lang: l, Checks: []string{"host.os"},
			Gather: func(context.Context) *machine.Snapshot { return s },
			Kernels: func(context.Context, *machine.Snapshot, doctor.Selection) (kernels.Report, error) {
				st := []kernels.StageResult{{Kind: "cuda", Stage: kernels.StageCompile, Skipped: true, Detail: "no nvcc", Facts: map[string]string{"skip": "skipped-no-nvcc"}}}
				return kernels.Report{Stages: st, Findings: kernels.Findings(st)}, nil
			}}
		if err := validateAndRun(context.Background(), o); err != nil {
			t.Fatalf("run: %v", err)
		}
		if !strings.Contains(out.String(), want) || strings.Contains(out.String(), "--nvcc") {
			t.Errorf("%s: want %q (and no probe flag in a fix) in:\n%s", l, want, out)
		}
	}
}
