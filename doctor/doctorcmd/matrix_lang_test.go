package doctorcmd_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/doctor/doctorcmd"
)

// The lines doctor takes from the compatibility matrix (cuda.select's
// blockers) follow --lang zh-CN like doctor's own texts; --json keeps them
// English. Every snapshot is diagnosed in both languages.
func TestLangZhCNMatrixLines(t *testing.T) {
	files, _ := filepath.Glob(snaps + "*.json")
	if len(files) < 20 {
		t.Fatalf("only %d snapshots", len(files))
	}
	// English sentences of matrix/data/text.en.json that show in the
	// English reports of these snapshots.
	matrixEnglish := regexp.MustCompile(`is too new for CUDA|cannot run CUDA \d+ builds|cannot be targeted by CUDA|no CUDA version fits|installed CUDA [0-9.]+: |→ use CUDA|update the driver to`)
	han := regexp.MustCompile(`\p{Han}`)
	seen := 0
	for _, snap := range files {
		name := filepath.Base(snap)
		_, en, _ := execute(t, "doctor", "--replay", snap)
		_, zh, _ := execute(t, "doctor", "--replay", snap, "--lang", "zh-CN")
		if matrixEnglish.MatchString(en) {
			seen++
		}
		for _, l := range strings.Split(zh, "\n") {
			if m := matrixEnglish.FindString(l); m != "" {
				t.Errorf("%s: zh-CN report keeps the matrix's English %q: %s", name, m, l)
			}
			if strings.Contains(l, " → ") && strings.HasPrefix(strings.TrimSpace(l), "已安装的 CUDA") && !han.MatchString(l[strings.Index(l, " → "):]) {
				t.Errorf("%s: untranslated fix in %s", name, l)
			}
		}
		if m := unfilled.FindString(zh); m != "" {
			t.Errorf("%s: unfilled %s", name, m)
		}
		_, enJSON, _ := execute(t, "doctor", "--replay", snap, "--json")
		_, zhJSON, _ := execute(t, "doctor", "--replay", snap, "--json", "--lang", "zh-CN")
		if norm(t, enJSON) != norm(t, zhJSON) {
			t.Errorf("%s: --json differs with --lang zh-CN", name)
		}
	}
	if seen < 3 {
		t.Errorf("only %d snapshots show matrix lines in English; the test checks too little", seen)
	}
	_, zh, _ := execute(t, "doctor", "--replay", snaps+"win-vs2022-17.11-cuda12.3-rtx4060.json", "--lang", "zh-CN")
	for _, want := range []string{"已安装的 CUDA 12.3.107：MSVC 19.41（VS 2022 17.11-17.14） 对 CUDA 12.3 来说太新", "→ 使用 CUDA ≥ 12.4，或并行安装 MSVC 19.39 工具集"} {
		if !strings.Contains(zh, want) {
			t.Errorf("zh-CN report lacks %q:\n%s", want, zh)
		}
	}
}

// norm is a --json document without its timings.
func norm(t *testing.T, s string) string {
	t.Helper()
	d := decode(t, s)
	d.Timing = doctorcmd.Timing{}
	for i := range d.Checks {
		d.Checks[i].Duration = 0
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
