package doctorcmd_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/failures"
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

// A recorded probe failure (nv.cuda-init) names its stage, cause and fix
// from the probe's and the failure knowledge base's catalogs: with --lang
// zh-CN all three are Chinese; English keeps the knowledge base's texts.
func TestRecordedProbeFailureInChinese(t *testing.T) {
	snap := snaps + "wsl2-probe-cuda-no-device.json"
	_, en, _ := execute(t, "doctor", "--replay", snap)
	_, zh, _ := execute(t, "doctor", "--replay", snap, "--lang", "zh-CN")
	e, ok := failures.Default().Entry("cuda-no-device")
	if !ok {
		t.Fatal("no cuda-no-device entry")
	}
	tr := failures.Default().Translator("zh-CN").Finding(failures.Finding{ID: e.ID, Cause: e.Cause, Fix: e.Fix})
	if !strings.Contains(en, e.Cause) || !strings.Contains(en, "→ "+e.Fix) {
		t.Errorf("English report lacks the knowledge base's cause or fix:\n%s", en)
	}
	for _, want := range []string{tr.Cause, "→ " + tr.Fix, "运行 阶段"} {
		if !strings.Contains(zh, want) {
			t.Errorf("zh-CN report lacks %q:\n%s", want, zh)
		}
	}
	if strings.Contains(zh, e.Cause) || strings.Contains(zh, " run ") {
		t.Errorf("zh-CN report keeps English:\n%s", zh)
	}
}
