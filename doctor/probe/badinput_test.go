package probe

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/machine"
)

// scriptDeps is a real machine (real processes, real files) whose PATH is
// only dir, so the tools doctor finds are the scripts a test writes there.
func scriptDeps(t *testing.T, dir string, self string) Deps {
	t.Helper()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("needs /bin/sh to run test tools")
	}
	env := map[string]string{"PATH": dir}
	return Deps{
		GOOS: "linux", GOARCH: "amd64",
		Runner:  proc.Exec{},
		FS:      OSFS{},
		Getenv:  func(k string) string { return env[k] },
		Environ: func() []string { return []string{"PATH=" + dir} },
		Now:     time.Now,
		Self:    self,
		// Generous: tools that answer must get to answer on a loaded
		// 2-core machine (300ms was overrun by a bare printf script).
		// TestHangingToolIsBounded sets short deadlines itself.
		Timeout:        40 * time.Second,
		CommandTimeout: 20 * time.Second,
	}
}

func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHangingToolIsBounded(t *testing.T) {
	dir := t.TempDir()
	writeScript(t, dir, "nvidia-smi", "sleep 30")
	writeScript(t, dir, "cmake", "sleep 30")
	self := writeScript(t, dir, "llamactl", "sleep 30")
	d := scriptDeps(t, dir, self)
	d.Timeout, d.CommandTimeout = 2*time.Second, 300*time.Millisecond
	start := time.Now()
	s := Gather(context.Background(), d)
	// The tools sleep 30s: well under that proves they were cut off, with
	// room for a loaded machine (this is not a speed test).
	if el := time.Since(start); el > 20*time.Second {
		t.Fatalf("Gather took %s with tools that hang for 30s", el)
	}
	if s.NVIDIA.SMIStatus != SMITimeout || s.NVIDIA.NVMLStatus != NVMLChildTimeout {
		t.Errorf("nvidia = %+v", s.NVIDIA)
	}
	if bt := s.BuildTools["cmake"]; bt.Error != "timed out" {
		t.Errorf("cmake = %+v", bt)
	}
	n := 0
	for _, e := range s.ProbeErrors {
		if e.TimedOut {
			n++
		}
	}
	if n < 3 {
		t.Errorf("timed-out probe errors = %+v", s.ProbeErrors)
	}
}

func TestGarbageAndNonUTF8Output(t *testing.T) {
	dir := t.TempDir()
	writeScript(t, dir, "cmake", `printf '\377\376garbage \200\201 version?\n'`)
	writeScript(t, dir, "nvcc", `printf '\377\376\000\001 no release here'`)
	writeScript(t, dir, "gcc", `printf 'gcc: \351rreur fatale\n'; exit 1`)
	writeScript(t, dir, "clinfo", `printf '\377\376Platform Name\n\n\n'`)
	writeScript(t, dir, "nvidia-smi", `printf '%s\n' 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.'; exit 9`)
	self := writeScript(t, dir, "llamactl", `echo 'not json {'`)
	s := Gather(context.Background(), scriptDeps(t, dir, self))
	if bt := s.BuildTools["cmake"]; bt.Version != "" || bt.Error == "" || !utf8.ValidString(bt.Raw) {
		t.Errorf("cmake = %+v", bt)
	}
	// the machine's own toolkits are found too (real FS); the garbage one has no version
	garbage := 0
	for _, tk := range s.Toolkits {
		if tk.NVCC == filepath.Join(dir, "nvcc") {
			garbage++
			if tk.Version != "" {
				t.Errorf("garbage nvcc gave version %q", tk.Version)
			}
		}
	}
	if garbage != 1 {
		t.Errorf("toolkits = %+v", s.Toolkits)
	}
	if len(s.Compilers) != 0 {
		t.Errorf("compilers = %+v", s.Compilers)
	}
	if s.NVIDIA.NVMLStatus != NVMLChildGarbage || s.NVIDIA.SMIStatus != SMIFailed {
		t.Errorf("nvidia = %+v", s.NVIDIA)
	}
	if s.OpenCL.Status == CLOK {
		t.Errorf("opencl = %+v", s.OpenCL)
	}
	for k, v := range s.Raw {
		if !utf8.ValidString(v) {
			t.Errorf("raw %q is not UTF-8", k)
		}
	}
	var sawNVCC bool
	for _, e := range s.ProbeErrors {
		sawNVCC = sawNVCC || strings.Contains(e.Error, "no CUDA release")
	}
	if !sawNVCC {
		t.Errorf("probe errors = %+v", s.ProbeErrors)
	}
}

func TestNVMLChildCrash(t *testing.T) {
	dir := t.TempDir()
	self := writeScript(t, dir, "llamactl", `echo 'segfault in libnvidia-ml' >&2; kill -SEGV $$`)
	s := Gather(context.Background(), scriptDeps(t, dir, self))
	if s.NVIDIA.NVMLStatus != NVMLChildCrashed {
		t.Errorf("nvml status = %q", s.NVIDIA.NVMLStatus)
	}
}

type panicHost struct{}

func (panicHost) Info(context.Context) (machine.OSInfo, error) { panic("gopsutil exploded") }

type blockHost struct{}

func (blockHost) Info(context.Context) (machine.OSInfo, error) { select {} }

func TestGathererPanicAndHangBecomeProbeErrors(t *testing.T) {
	d := Deps{GOOS: "linux", Host: panicHost{}, Timeout: 200 * time.Millisecond}
	s := Gather(context.Background(), d)
	if len(s.ProbeErrors) == 0 || s.ProbeErrors[0].Probe != "host" || !strings.Contains(s.ProbeErrors[0].Error, "gopsutil exploded") {
		t.Errorf("probe errors = %+v", s.ProbeErrors)
	}
	d.Host = blockHost{}
	start := time.Now()
	s = Gather(context.Background(), d)
	if time.Since(start) > 20*time.Second { // it blocks forever; loose for loaded machines
		t.Errorf("a blocked gatherer held Gather for %s", time.Since(start))
	}
	found := false
	for _, e := range s.ProbeErrors {
		found = found || (e.Probe == "host" && e.TimedOut)
	}
	if !found || s.OS.GOOS != "linux" {
		t.Errorf("probe errors = %+v os=%+v", s.ProbeErrors, s.OS)
	}
}

func TestCorruptRecordings(t *testing.T) {
	cases := map[string]string{
		"not json":        `{"goos": "windows", `,
		"unknown field":   `{"goos": "linux", "comands": {}}`,
		"bad goos":        `{"goos": "plan9"}`,
		"missing fixture": `{"goos": "linux", "commands": {"nvcc --version": {"stdout_file": "nope.txt"}}}`,
		"bad lines":       `{"goos": "linux", "commands": {"x": {"stdout": "", "stdout_file": "f.txt", "lines": "9-1"}}}`,
		"absolute":        `{"goos": "linux", "commands": {"x": {"stdout_file": "/etc/passwd"}}}`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			_ = os.WriteFile(filepath.Join(dir, "f.txt"), []byte("a\nb\n"), 0o644)
			_ = os.WriteFile(filepath.Join(dir, "scenario.json"), []byte(body), 0o644)
			s, err := GatherRecording(dir)
			if err == nil || s != nil {
				t.Fatalf("want an error, got %v", err)
			}
			if !strings.Contains(err.Error(), "recording") {
				t.Errorf("error does not name the recording: %v", err)
			}
		})
	}
	if _, err := GatherRecording(filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Error("missing recording dir: want an error")
	}
}

// A file that is not executable is not a tool, whatever its name.
func TestNonExecutableIsNoHit(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cmake"), []byte("not a program"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeScript(t, dir, "ninja", `echo 1.11.1`)
	s := Gather(context.Background(), scriptDeps(t, dir, ""))
	if len(s.Tools["cmake"]) != 0 || s.BuildTools["ninja"].Version != "1.11.1" {
		t.Errorf("tools = %+v build tools = %+v", s.Tools, s.BuildTools)
	}
}
