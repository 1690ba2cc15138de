package doctorcmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/cli"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
)

// `llamactl doctor --probe` for real on the CI machine: PoCL's OpenCL probe
// passes; with no GPU the CUDA probe still compiles and links with Debian's
// nvcc 11.8 and g++-11 (the selection's host compiler) for a fallback
// architecture, then reports the missing device as a warning whose failure
// ID survives into --json.
func TestRealDoctorProbe(t *testing.T) {
	needCI(t)
	if r, err := (proc.Exec{}).Run(context.Background(), proc.Cmd{Name: "clinfo", Args: []string{"-l"}, Timeout: 10 * time.Second}); err != nil || !strings.Contains(string(r.Stdout), "Portable Computing Language") {
		testutil.Missing(t, "PoCL is not listed by clinfo -l (scripts/deps.sh installs pocl-opencl-icd)")
	}
	if _, err := exec.LookPath("nvcc"); err != nil {
		testutil.Missing(t, "nvcc is not on PATH")
	}
	code, d := realDoctor(t, "--probe")
	if code != 0 {
		t.Errorf("exit %d, want 0: the probe's findings are warnings here", code)
	}
	byID := map[string]int{}
	for i, c := range d.Checks {
		if strings.HasPrefix(c.ID, "probe.") {
			byID[c.ID] = i
		}
	}
	oi, ok := byID["probe.opencl"]
	if !ok || d.Checks[oi].Status != "ok" {
		t.Errorf("probe.opencl: %+v", d.Checks)
	}
	ci, ok := byID["probe.cuda"]
	if !ok {
		t.Fatalf("no probe.cuda finding in %+v", d.Checks)
	}
	c := d.Checks[ci]
	if c.Message != "probe.cuda/compiled-no-device" || c.Status != "warn" || c.Facts["failure_id"] != "cuda-no-device" {
		t.Errorf("probe.cuda = %s %s facts %v: want compiled-no-device, warn, failure_id cuda-no-device", c.Message, c.Status, c.Facts)
	}
	if !strings.Contains(c.Summary, "11.8") || !strings.Contains(c.Summary, "g++-11") {
		t.Errorf("summary %q does not name nvcc 11.8 and g++-11", c.Summary)
	}
	if len(c.Details) == 0 || !strings.Contains(c.Details[0], "No NVIDIA GPU to build for") {
		t.Errorf("details do not say which architecture was compiled and why: %q", c.Details)
	}
	compiled := false
	for _, p := range d.Snapshot.Probes {
		compiled = compiled || (p.Kind == "cuda" && p.Stage == "compile" && p.OK)
	}
	if !compiled {
		t.Errorf("snapshot probes: %+v", d.Snapshot.Probes)
	}
	// The failure ID is in the JSON text itself, not only in Go's view of it.
	b, _ := json.Marshal(d.Checks[ci])
	if !strings.Contains(string(b), `"failure_id":"cuda-no-device"`) {
		t.Errorf("--json lacks facts.failure_id: %s", b)
	}
}

// `llamactl doctor --probe --lang zh-CN` for real on the CI machine: the
// probe section is Chinese (findings, stage names, fix); only the tools'
// own words, names, paths and commands stay Latin.
func TestRealDoctorProbeInChinese(t *testing.T) {
	needCI(t)
	if _, err := exec.LookPath("nvcc"); err != nil {
		testutil.Missing(t, "nvcc is not on PATH")
	}
	f := cmdutil.New()
	var out, errOut bytes.Buffer
	f.IO.Out, f.IO.ErrOut = &out, &errOut
	if code := cli.Execute(f, []string{"doctor", "--probe", "--lang", "zh-CN"}); code > 1 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	s := out.String()
	i := strings.Index(s, "\n内核探测\n")
	if i < 0 {
		t.Fatalf("no Chinese probe section:\n%s", s)
	}
	sec := s[i:]
	if j := strings.Index(sec[1:], "\n\n"); j > 0 {
		sec = sec[:j+1]
	}
	for _, want := range []string{"CUDA 探测：nvcc 11.8", "✓ 编译", "✓ 链接", "→ 如果", "OpenCL 探测在 "} {
		if !strings.Contains(sec, want) {
			t.Errorf("probe section lacks %q:\n%s", want, sec)
		}
	}
	for _, english := range []string{"CUDA probe", "compiles and links", "If this machine", "OpenCL probe passed", "No NVIDIA GPU to build for"} {
		if strings.Contains(sec, english) {
			t.Errorf("probe section keeps English %q:\n%s", english, sec)
		}
	}
}
