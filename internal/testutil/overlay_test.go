package testutil

import (
	"strings"
	"testing"
)

func TestEnglishLeft(t *testing.T) {
	for s, want := range map[string]string{
		"安装 glslc 后重新运行 llamactl doctor":                              "",
		"运行 cmake --build build 2>&1 | llamactl explain":              "",
		"the build needs network access":                              "the build needs network",
		"请安装 'Desktop development with C++' 工作负载":                     "",
		"{device} 需要 {need} MiB, {free} MiB free 了":                   "",
		"构建失败 because it was not found":                               "because it was not",
		"Visual Studio Build Tools 已安装":                               "Visual Studio Build Tools",
		"用 -DCMAKE_CUDA_HOST_COMPILER=g++-12 and rerun the build now": "and rerun the build",
		`位于 D:\NVIDIA GPU Computing Toolkit\CUDA\v12.3`:               "",
		"（llamactl matrix gpu NAME 会给出）":                              "",
		"llamactl doctor and then run the build":                      "then run the build",
	} {
		if got := EnglishLeft(s); got != want {
			t.Errorf("EnglishLeft(%q) = %q, want %q", s, got, want)
		}
	}
	if got := EnglishLeft("Visual Studio Build Tools 已安装", "Visual Studio Build Tools"); got != "" {
		t.Errorf("allow: %q", got)
	}
}

func TestCheckOverlay(t *testing.T) {
	en := map[string]string{"a": "use CUDA {v}", "b": "fix it now please", "c": "llamactl doctor", "d": "x"}
	r := &recorder{}
	CheckOverlay(r, en, map[string]string{"a": "使用 CUDA {w}", "b": "fix it now please", "e": "多余"}, map[string]bool{"c": true})
	for _, want := range []string{"placeholders", "English text", "English left", "stale", "no translation of \"x\""} {
		found := false
		for _, m := range r.errs {
			if strings.Contains(m, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("no complaint about %q in %q", want, r.errs)
		}
	}
	r = &recorder{}
	CheckOverlay(r, en, map[string]string{"a": "使用 CUDA {v}", "b": "现在修复", "d": "叉"}, map[string]bool{"c": true})
	if len(r.errs) != 0 {
		t.Errorf("a good overlay failed: %q", r.errs)
	}
}
