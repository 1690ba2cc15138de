package doctorcmd_test

import (
	"regexp"
	"strings"
	"testing"
)

// `doctor --verbose --lang zh-CN`: the raw facts table, the gatherers'
// table and the timing line speak Chinese (values stay as recorded); the
// English words of the English run are gone.
func TestVerboseFactsInChinese(t *testing.T) {
	for _, snap := range []string{"win-vs2022-17.11-cuda12.3-rtx4060.json", "linux-ci-debian-nvcc11.8-gcc12.json", "win-intel-iris-xe-vulkan-no-glslc.json"} {
		_, en, _ := execute(t, "doctor", "--replay", snaps+snap, "--verbose")
		_, zh, _ := execute(t, "doctor", "--replay", snaps+snap, "--verbose", "--lang", "zh-CN")
		i := strings.Index(zh, "\n原始信息\n")
		if i < 0 || !strings.Contains(en, "\nFacts\n") {
			t.Fatalf("%s: no facts table (zh heading at %d):\n%s", snap, i, zh)
		}
		facts := zh[i:]
		for _, want := range []string{"操作系统", "采集 "} {
			if !strings.Contains(zh[i-200:], want) && !strings.Contains(facts, want) {
				t.Errorf("%s: zh-CN facts lack %q:\n%s", snap, want, facts)
			}
		}
		for _, english := range []string{"Facts", "Gatherers", "found by", "nvidia-smi says", "MiB free", "toolsets=", "vc-tools=", "(version ",
			"commands (llamactl", "probe error", "recorded outputs", "vulkan toolchain", "; loader", "gather ", "sum of checks", "true", "false"} {
			if strings.Contains(facts, english) || strings.Contains(zh, "; gather") {
				t.Errorf("%s: zh-CN facts keep English %q:\n%s", snap, english, facts)
			}
		}
		if m := regexp.MustCompile(`\{[a-z_]+\}`).FindString(facts); m != "" {
			t.Errorf("%s: unfilled %s", snap, m)
		}
	}
}
