package kernels

import (
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/enginefacts"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/testutil"
)

// neutral reads the same in Chinese: a bare placeholder.
var neutral = map[string]bool{"detail.cuda-devices": true}

// messages.zh-CN.json translates every probe text, keeps placeholders and
// leaves no English sentence; a stage detail filled in English comes back
// in Chinese.
func TestZhCNOverlay(t *testing.T) {
	zh, err := zhCN()
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckOverlay(t, Texts(), zh, neutral)
	testutil.CheckTextCatalog(t, messagesZhCN)
	skip := map[string]bool{"detail.cuda-devices": true}
	for _, s := range Stages { // a stage name alone is translated by Stage
		skip["stage."+s] = true
	}
	testutil.CheckLines(t, Texts(), zh, NewTranslator(lang.ZhCN).Line, skip)
}

// The reasons internal/enginefacts gives for llama.cpp's OpenCL choice are
// detail.accept.* here: each one it returns is translated.
func TestAcceptReasonsTranslated(t *testing.T) {
	tr := NewTranslator(lang.ZhCN)
	for _, c := range [][4]string{
		{"Intel(R) UHD Graphics 770", "Intel(R) Corporation", "CPU", "OpenCL C 3.0"},
		{"AMD Radeon RX 7900 XTX", "Advanced Micro Devices, Inc.", "GPU", "OpenCL C 2.0"},
		{"QUALCOMM Adreno(TM) 740", "QUALCOMM", "GPU", "OpenCL C x"},
		{"QUALCOMM Adreno(TM) 740", "QUALCOMM", "GPU", "OpenCL C 1.2 Adreno(TM) 740"},
		{"QUALCOMM Adreno(TM) 740", "QUALCOMM", "GPU", "OpenCL C 3.0 Adreno(TM) 740"},
	} {
		_, why := enginefacts.OpenCLAccepts(c[0], c[1], c[2], c[3])
		if got := tr.Line(why); got == why || testutil.EnglishLeft(got) != "" {
			t.Errorf("%v: reason %q not translated: %q", c, why, got)
		}
	}
}

// Findings come out in Chinese with their facts; a stage name, a failure's
// title and a count nested in a detail are translated too; the English
// finding, the ID and the commands stay.
func TestTranslateFindings(t *testing.T) {
	tr := NewTranslator(lang.ZhCN)
	stages := []StageResult{
		{Kind: "cuda", Stage: StageCompile, FailureID: "nvcc-unsupported-gcc", Facts: map[string]string{"nvcc_version": "12.4", "host": "g++-14", "max_gcc": "13"}},
		{Kind: "cuda", Stage: StageLink, FailureID: "cuda-link-libpath", Facts: map[string]string{}},
	}
	for _, f := range Findings(stages) {
		z := tr.Finding(f)
		if z.ID != f.ID || z.Summary == f.Summary || testutil.EnglishLeft(z.Summary) != "" {
			t.Errorf("%s: %q -> %q", f.Message, f.Summary, z.Summary)
		}
		if f.Fix != nil && (z.Fix.Text == f.Fix.Text || strings.Join(z.Fix.Commands, "|") != strings.Join(f.Fix.Commands, "|")) {
			t.Errorf("%s: fix %q -> %q", f.Message, f.Fix.Text, z.Fix.Text)
		}
		t.Logf("%s: %s", f.Message, z.Summary)
	}
	f := newFinding("probe.cuda", "probe.cuda/known", Error, "cuda-toolkit-mixed", map[string]string{"stage": "compile", "kb_title": "headers and nvcc come from different CUDA toolkits"}, nil)
	if got := tr.Finding(f).Summary; got != "CUDA 探测：编译阶段失败：头文件和 nvcc 来自不同的 CUDA 工具包" {
		t.Errorf("known failure: %q", got)
	}
	d := detail("opencl-ok", map[string]string{"platforms": count("platform", 1), "devices": count("device", 2), "loader": "libOpenCL.so.1"})
	if got := tr.Line(d); got != "1 个平台，2 个设备，通过 libOpenCL.so.1" {
		t.Errorf("detail %q -> %q", d, got)
	}
	if got := NewTranslator("").Finding(f); got.Summary != f.Summary {
		t.Errorf("English translator changed %q", got.Summary)
	}
	part, _ := zhCN()
	p2 := map[string]string{}
	for k, v := range part {
		p2[k] = v
	}
	delete(p2, "probe.cuda/known.summary")
	if got := NewTranslatorWith(lang.ZhCN, p2).Finding(f).Summary; got != f.Summary {
		t.Errorf("missing text: %q, want the English %q", got, f.Summary)
	}
}

// Detail translates a probe finding's stage lines (stageLines): the stage
// name and a detail from the texts; the tool's own words and the duration
// stay; English keeps the line.
func TestDetailStageLines(t *testing.T) {
	zh, en := NewTranslator(lang.ZhCN), NewTranslator(lang.EN)
	for in, want := range map[string]string{
		"✓ compile (520ms)":                       "✓ 编译 (520ms)",
		"✗ load: no CUDA-capable device":          "✗ 加载: no CUDA-capable device",
		"✓ verify: 1048576 elements correct":      "✓ 验证: 1048576 个元素全部正确",
		"- run: skipped: an earlier stage failed": "- 运行: 已跳过：之前的阶段失败",
		"✓ bogus: stays":                          "✓ bogus: stays",
	} {
		if got := zh.Detail(in); got != want {
			t.Errorf("Detail(%q) = %q, want %q", in, got, want)
		}
		if got := en.Detail(in); got != in {
			t.Errorf("English Detail(%q) = %q", in, got)
		}
	}
}
