package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
)

func TestParseVersion(t *testing.T) {
	v, b, c := ParseVersion(testutil.Fixture(t, "runner", "llama-server-b11669-version.txt"))
	if v != "0.7.0" || b != 11669 || c != "Debian" {
		t.Errorf("debian: %q %d %q", v, b, c)
	}
	// Upstream Windows release banner (recorded in llama.cpp#22778).
	v, b, c = ParseVersion(testutil.Fixture(t, "runner", "gpu-backend-not-loaded-false-warning-regression-llamacpp-22778-win.log"))
	if v != "9049" || b != 9049 || c != "2496f9c14" {
		t.Errorf("upstream: %q %d %q", v, b, c)
	}
	// A tree with local changes: the commit is the hash, as build's verifier reads it.
	if v, b, c = ParseVersion("version: 4589 (a1b2c3d4-dirty)\n"); v != "4589" || b != 4589 || c != "a1b2c3d4" {
		t.Errorf("dirty: %q %d %q", v, b, c)
	}
	if v, _, _ := ParseVersion("llama-server: command not found"); v != "" {
		t.Errorf("garbage gave version %q", v)
	}
}

func TestParseHelpB11669(t *testing.T) {
	c := ParseHelp(testutil.Fixture(t, "runner", "llama-server-b11669-help.txt"))
	checks := map[string]bool{"fit": c.Fit, "fa arg": c.FlashAttnArg, "spec-type": c.SpecType, "spec-draft-n": c.SpecDraftN,
		"load-mode": c.LoadMode, "ngl auto": c.NGLAuto, "list-devices": c.ListDevices, "n-cpu-moe": c.CPUMoE,
		"verbosity": c.Verbosity, "embedding": c.Embedding, "draft model": c.DraftModel, "cache types": c.CacheTypes,
		"flash attention": c.FlashAttn, "no-op-offload": c.NoOpOffload}
	for name, ok := range checks {
		if !ok {
			t.Errorf("build 11669 knows %s", name)
		}
	}
	if c.FitPrint {
		t.Error("build 11669's llama-server has no --fit-print")
	}
	for _, f := range []string{"-c", "--ctx-size", "-ub", "-ngl", "--port", "-np", "-t"} {
		if !c.Flags[f] {
			t.Errorf("flag %s not found", f)
		}
	}
	if c.Flags["--draft-max"] || c.Flags["--no-mmap"] {
		t.Error("removed flags must not be reported (only mentioned in descriptions)")
	}
}

// An old build (before --fit, --spec-*, --load-mode; bare -fa) cannot run
// here; this is the option column of such a --help.
func TestParseHelpOld(t *testing.T) {
	old := `-fa,   --flash-attn                     enable Flash Attention (default: disabled)
-ngl,  --gpu-layers, --n-gpu-layers N   number of layers to store in VRAM
--no-mmap                               do not memory-map model
-md,   --model-draft FNAME              draft model for speculative decoding (default: unused)
--draft-max, --draft, --draft-n N       number of tokens to draft for speculative decoding (default: 16)
`
	c := ParseHelp(old)
	if c.Fit || c.FlashAttnArg || c.SpecType || c.SpecDraftN || c.LoadMode || c.NGLAuto || c.ListDevices {
		t.Errorf("old build caps = %+v", c)
	}
	if !c.FlashAttn || c.NoOpOffload { // bare -fa is still flash attention
		t.Errorf("old build: flash attention %v, --no-op-offload %v", c.FlashAttn, c.NoOpOffload)
	}
	if !c.Flags["--no-mmap"] || !c.Flags["--draft-max"] || !c.DraftModel {
		t.Errorf("old flags missing: %v", c.Flags)
	}
}

func TestParseDevices(t *testing.T) {
	ds := ParseDevices(testutil.Fixture(t, "runner", "gpu-backend-not-loaded-false-warning-regression-llamacpp-22778-win.log"))
	if len(ds) != 1 || ds[0].ID != "CUDA0" || ds[0].Name != "NVIDIA GeForce RTX 4090 Laptop GPU" || ds[0].TotalMiB != 16375 || ds[0].FreeMiB != 15046 {
		t.Errorf("devices = %+v", ds)
	}
	if ds := ParseDevices(testutil.Fixture(t, "runner", "llama-server-b11669-list-devices-cpu.txt")); len(ds) != 0 {
		t.Errorf("CPU-only engine lists %+v", ds)
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "llama-server"+exeSuffix())
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	base := Locator{Getenv: func(string) string { return "" }, ReadFile: os.ReadFile, Stat: os.Stat, Runner: &proc.Replay{}, CacheDir: cache}

	l := base
	l.Flag = dir
	if p, src, err := l.Find(); err != nil || p != bin || src != "flag" {
		t.Errorf("--engine DIR: %q %q %v", p, src, err)
	}
	l.Flag = filepath.Join(dir, "nope")
	if _, _, err := l.Find(); !errors.Is(err, ErrNoEngine) {
		t.Errorf("bad --engine: %v", err)
	}
	// Last build record.
	os.MkdirAll(filepath.Join(cache, "llamactl"), 0o755)
	os.WriteFile(filepath.Join(cache, LastBuildFile), []byte(`{"bin_dir":"`+filepath.ToSlash(dir)+`"}`), 0o644)
	if p, src, err := base.Find(); err != nil || p != bin || src != "last-build" {
		t.Errorf("last build: %q %q %v", p, src, err)
	}
	// PATH as the last resort.
	l = base
	l.CacheDir = ""
	l.Runner = &proc.Replay{Paths: map[string]string{"llama-server": "/usr/bin/llama-server"}}
	if p, src, err := l.Find(); err != nil || p != "/usr/bin/llama-server" || src != "PATH" {
		t.Errorf("PATH: %q %q %v", p, src, err)
	}
	l.Runner = &proc.Replay{}
	if _, _, err := l.Find(); !errors.Is(err, ErrNoEngine) {
		t.Errorf("nothing anywhere: %v", err)
	}
}

func TestProbeReplay(t *testing.T) {
	r := &proc.Replay{Commands: map[string]proc.Recording{
		"/e/llama-server --version": {Stderr: testutil.Fixture(t, "runner", "llama-server-b11669-version.txt")},
		"/e/llama-server --help":    {Stdout: testutil.Fixture(t, "runner", "llama-server-b11669-help.txt")},
	}}
	e, err := Probe(context.Background(), r, "/e/llama-server", "flag")
	if err != nil {
		t.Fatal(err)
	}
	if e.Build != 11669 || !e.Caps.Fit {
		t.Errorf("engine = %+v", e)
	}
	r.Commands["/e/llama-server --version"] = proc.Recording{Stdout: "Usage: something else"}
	if _, err := Probe(context.Background(), r, "/e/llama-server", "flag"); err == nil {
		t.Error("a binary without a version banner must be rejected")
	}
}

// The real engine, when installed (CI installs it with scripts/deps.sh).
func TestProbeRealEngine(t *testing.T) {
	p := filepath.Join(testutil.EngineDir(t, "llama-server"), "llama-server")
	e, err := Probe(context.Background(), proc.Exec{}, p, "test")
	if err != nil {
		t.Fatal(err)
	}
	if e.Build == 0 || !e.Caps.Flags["--ctx-size"] {
		t.Errorf("real engine = %+v", e)
	}
	if _, err := e.ListDevices(context.Background(), proc.Exec{}); err != nil {
		t.Error(err)
	}
}

func FuzzParseEngineOutput(f *testing.F) {
	f.Add("version: 0.7.0 (build 11669, commit Debian)\n")
	f.Add("Available devices:\n  CUDA0: NVIDIA GeForce RTX 4090 Laptop GPU (16375 MiB, 15046 MiB free)\n")
	f.Add("-fa,   --flash-attn [on|off|auto]       set Flash Attention use\n")
	f.Fuzz(func(t *testing.T, s string) {
		ParseVersion(s)
		for _, d := range ParseDevices(s) {
			if d.ID == "" {
				t.Fatal("device without id")
			}
		}
		ParseHelp(s)
	})
}
