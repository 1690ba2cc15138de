package doctorcmd_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden outputs in testdata/golden")

// timingRE matches the timings of a --json document and durationRE a
// check's duration (omitted when 0, as on Windows' coarse clock): they
// differ per run.
var (
	timingRE   = regexp.MustCompile(`("(?:gather_ms|checks_ms|checks_sum_ms|total_ms)": )[0-9.e+-]+`)
	durationRE = regexp.MustCompile(`,\n\s*"duration_ns": [0-9]+`)
)

// doctor --json replaying saved machines with several flag sets: byte for
// byte as recorded (durations zeroed). -update rewrites testdata/golden.
func TestGoldenDoctorJSON(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"linux-ci", []string{"--replay", snaps + "linux-ci-debian-nvcc11.8-gcc12.json"}},
		{"win-rtx4060", []string{"--replay", snaps + "win-vs2022-17.11-cuda12.3-rtx4060.json"}},
		{"win-amd-opencl", []string{"--replay", snaps + "win-amd-rx7900xtx-asks-opencl.json", "--backend", "OpenCL"}},
		{"win-three-one-check", []string{"--replay", snaps + "win-three-toolkits-path-order.json", "--check", " cuda.host-compiler ", "--check", "host.os"}},
		{"wsl2-hip", []string{"--replay", snaps + "wsl2-amd-rocm-hip-visible-empty-old-cmake.json", "--lang", "zh-CN", "--backend", "hip"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := execute(t, append([]string{"doctor", "--json"}, c.args...)...)
			got := fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, durationRE.ReplaceAllString(timingRE.ReplaceAllString(out, "${1}0"), ""), errOut)
			p := filepath.Join("testdata", "golden", c.name+".json")
			if *update {
				if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(p)
			if err != nil {
				t.Fatalf("%v (go test ./doctor/doctorcmd -run Golden -update writes it)", err)
			}
			if string(want) != got {
				t.Errorf("differs from %s:\n%s", p, firstDiff(string(want), got))
			}
		})
	}
}

// firstDiff shows the first line that differs.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n want %q\n  got %q", i+1, a, b)
		}
	}
	return ""
}
