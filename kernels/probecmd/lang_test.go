package probecmd

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/kernels/opencl"
	"github.com/llamactl/llamactl/machine"
)

// data/text.zh-CN.json translates every sentence probe prints itself.
func TestZhCNTexts(t *testing.T) {
	en, zh := testutil.CheckTextFiles(t, textEN, textZhCN)
	testutil.CheckLines(t, en, zh, texts(lang.ZhCN).Line, nil)
}

// openCLChild is the real OpenCL child's answer on this machine (PoCL),
// run in this process and replayed as `llamactl __probe opencl`.
func openCLChild(t *testing.T) *proc.Replay {
	t.Helper()
	if _, err := os.Stat("/etc/OpenCL/vendors/pocl.icd"); err != nil || !opencl.Available() {
		testutil.Missing(t, "PoCL ICD not installed; scripts/deps.sh installs it")
	}
	b, err := json.Marshal(opencl.Run())
	if err != nil {
		t.Fatal(err)
	}
	return &proc.Replay{Commands: map[string]proc.Recording{"/opt/llamactl __probe opencl": {Stdout: string(b)}}}
}

// probe --only opencl --lang zh-CN on the real PoCL device: headings, stage
// names, details (counts nested), findings and the acceptance reason are
// Chinese; device names stay; --json is the same bytes in any language.
func TestOpenCLProbeInChinese(t *testing.T) {
	r := openCLChild(t)
	o, out := newOpts(t, r, &machine.Snapshot{})
	o.Only, o.Lang = "opencl", "zh-CN"
	o.F.IO.Verbose = true
	_ = run(context.Background(), o)
	s := out.String()
	for _, want := range []string{"OpenCL 探测\n", "✓ 枚举: 1 个平台，", "通过 ", "构建（设备 ", "运行（设备 ", "验证（设备 ", "发现\n", "OpenCL 探测在 ", "llama.cpp 的 OpenCL 后端不会使用 ", "它不是 GPU（CPU）", "修复："} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "$ ") || strings.HasPrefix(strings.TrimSpace(l), "平台 ") || strings.HasPrefix(strings.TrimSpace(l), "设备 ") {
			continue // commands and the devices' own names
		}
		if w := testutil.EnglishLeft(l); w != "" {
			t.Errorf("English left (%q): %s", w, l)
		}
	}

	var docs []string
	for _, env := range []map[string]string{nil, {"LANG": "zh_CN.UTF-8"}} {
		o, out := newOpts(t, openCLChild(t), &machine.Snapshot{})
		o.F.Getenv = func(k string) string { return env[k] }
		o.Only, o.F.IO.JSON = "opencl", true
		if env != nil {
			o.Lang = "zh-CN"
		}
		_ = run(context.Background(), o)
		docs = append(docs, out.String())
	}
	if docs[0] != docs[1] || !strings.Contains(docs[0], `"findings"`) {
		t.Errorf("--json differs with --lang zh-CN:\n%s\n%s", docs[0], docs[1])
	}

	o, _ = newOpts(t, &proc.Replay{}, &machine.Snapshot{})
	o.Only, o.Lang = "rocm", "zh-CN"
	if err := run(context.Background(), o); cmdutil.ExitCode(err) != cmdutil.ExitUsage || err.Error() != `--only "rocm"：请选择 cuda 或 opencl` {
		t.Errorf("--only rocm: %v", err)
	}
}

// The CUDA probe with the real nvcc 11.8 in Chinese: compile and link pass,
// the run finds no device, and the finding and its fix are Chinese.
func TestCUDAProbeInChinese(t *testing.T) {
	nvcc, err := exec.LookPath("nvcc")
	if err != nil {
		testutil.Missing(t, "nvcc not installed (scripts/deps.sh installs nvidia-cuda-toolkit)")
	}
	if _, err := exec.LookPath("g++-11"); err != nil {
		testutil.Missing(t, "g++-11 not installed")
	}
	snap := &machine.Snapshot{Schema: 1,
		OS:       machine.OSInfo{GOOS: "linux", Arch: "amd64"},
		NVIDIA:   machine.NVIDIA{NVMLStatus: "ok", DriverVersion: "560.35.03", CUDADriverAPI: "12.6", GPUs: []machine.GPU{{Index: 0, Name: "NVIDIA GeForce RTX 4090", ComputeCapability: "8.9", TotalMiB: 24564}}},
		Toolkits: []machine.CUDAToolkit{{Version: "11.8.89", Root: "/usr/lib/nvidia-cuda-toolkit", NVCC: nvcc, Found: []string{"debian"}}},
		Compilers: []machine.Compiler{
			{Kind: "g++", Path: "/usr/bin/g++", Version: "12.2.0", Major: 12},
			{Kind: "g++", Path: "/usr/bin/g++-11", Version: "11.3.0", Major: 11},
		},
	}
	o, out := newOpts(t, proc.Exec{}, snap)
	o.Select = doctor.Select
	o.Only, o.Lang = "cuda", "zh-CN"
	_ = run(context.Background(), o)
	s := out.String()
	for _, want := range []string{"CUDA 探测\n", "nvcc 11.8", "主机编译器 ", "架构 ", "✓ 编译", "✓ 链接", "- 运行: 已跳过：加载阶段失败", "✗ 加载: ", "发现\n", "失败：cuda-no-device"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}
