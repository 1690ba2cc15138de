package kernels

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/llamactl/llamactl/build/msvcenv"
	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/internal/proc"
)

//go:embed probe.cu
var cudaSource string

// Stage names, in the order a probe runs them.
const (
	StageCompile = "compile"
	StageLink    = "link"
	StageLoad    = "load"
	StageRun     = "run"
	StageVerify  = "verify"
	// OpenCL and Vulkan stages.
	StageEnumerate = "enumerate"
	StageBuild     = "build"
	StageAccept    = "llama-accepts"
)

// StageResult is one stage of one probe.
type StageResult struct {
	Kind      string             `json:"kind"` // cuda, opencl, vulkan
	Stage     string             `json:"stage"`
	Device    string             `json:"device,omitempty"`
	OK        bool               `json:"ok"`
	Skipped   bool               `json:"skipped,omitempty"`
	TimedOut  bool               `json:"timed_out,omitempty"`
	FailureID string             `json:"failure_id,omitempty"`
	Excerpt   string             `json:"excerpt,omitempty"` // the line that names the failure
	Detail    string             `json:"detail,omitempty"`
	Command   string             `json:"command,omitempty"`
	Output    string             `json:"output,omitempty"` // the stage's output (tail) when it failed
	Duration  time.Duration      `json:"duration_ns,omitempty"`
	Metrics   map[string]float64 `json:"metrics,omitempty"`
	// Facts fill the finding text ({arch}, {min_cuda}, {max_gcc}...).
	Facts map[string]string `json:"facts,omitempty"`
}

// CUDADevice is a device as the probe's CUDA runtime reports it.
type CUDADevice struct {
	Index  int    `json:"index"`
	Name   string `json:"name"`
	CC     string `json:"cc"`
	MemMiB uint64 `json:"mem_mib,omitempty"`
}

// CUDAReport is the whole CUDA probe.
type CUDAReport struct {
	Plan           CUDAPlan      `json:"plan"`
	NVCCVersion    string        `json:"nvcc_version,omitempty"`
	RuntimeVersion int           `json:"runtime_version,omitempty"` // 11080 = 11.8
	DriverVersion  int           `json:"driver_version,omitempty"`  // highest CUDA the driver supports, 12020 = 12.2
	Devices        []CUDADevice  `json:"devices,omitempty"`
	Stages         []StageResult `json:"stages"`
}

// maxOutputTail bounds the output kept per failed stage.
const maxOutputTail = 4000

// ProbeCUDA compiles, links, loads, runs and verifies the embedded probe
// with exactly the plan's nvcc, -ccbin and -gencode flags. Each stage has its
// own timeout; the stages after a failed one are reported as skipped. The
// temporary directory (source, object, binary) is removed before returning.
func ProbeCUDA(ctx context.Context, r proc.Runner, plan CUDAPlan) CUDAReport {
	rep := probeCUDA(ctx, r, plan)
	// Every stage carries the facts the finding texts name.
	base := map[string]string{"nvcc": plan.NVCC, "nvcc_version": rep.NVCCVersion, "archs": ArchList(plan.Archs), "host": plan.CCBin}
	if plan.CCBin == "" {
		base["host"] = "nvcc's default host compiler"
	}
	if base["nvcc_version"] == "" {
		base["nvcc_version"] = "(unknown version)"
	}
	if len(rep.Devices) > 0 {
		d := rep.Devices[0]
		base["device"], base["cc"], base["cc_arch"] = d.Name, d.CC, strings.ReplaceAll(d.CC, ".", "")
	}
	for i := range rep.Stages {
		f := map[string]string{}
		for k, v := range base {
			f[k] = v
		}
		for k, v := range rep.Stages[i].Facts {
			f[k] = v
		}
		rep.Stages[i].Facts = f
	}
	return rep
}

func probeCUDA(ctx context.Context, r proc.Runner, plan CUDAPlan) CUDAReport {
	rep := CUDAReport{Plan: plan, NVCCVersion: plan.ToolkitVersion}
	t := plan.Timeouts
	if t == (Timeouts{}) {
		t = DefaultTimeouts
	}
	order := []string{StageCompile, StageLink, StageLoad, StageRun, StageVerify}
	finish := func(failed StageResult) CUDAReport {
		rep.Stages = append(rep.Stages, failed)
		for _, s := range order[len(rep.Stages):] {
			rep.Stages = append(rep.Stages, StageResult{Kind: "cuda", Stage: s, Skipped: true, Detail: detail("skipped-after", map[string]string{"stage": failed.Stage})})
		}
		return rep
	}

	if rep.NVCCVersion == "" {
		res, err := r.Run(ctx, proc.Cmd{Name: plan.NVCC, Args: []string{"--version"}, Env: plan.Env, Timeout: t.Version})
		if err == nil {
			rep.NVCCVersion = probe.ParseNvccVersion(string(res.Stdout))
		}
	}
	dir, err := os.MkdirTemp("", "llamactl-probe-")
	if err != nil {
		return finish(StageResult{Kind: "cuda", Stage: StageCompile, Detail: detail("no-temp-dir", map[string]string{"err": err.Error()})})
	}
	defer os.RemoveAll(dir)
	env := plan.Env
	if plan.GOOS == "windows" && plan.VCVarsAll != "" {
		// The same import build uses (x64, -vcvars_ver for a pinned toolset).
		args := []string{"x64"}
		if plan.MSVCToolset != "" {
			args = append(args, "-vcvars_ver="+plan.MSVCToolset)
		}
		base := env
		if base == nil {
			base = os.Environ()
		}
		e, err := msvcenv.Import(ctx, r, dir, plan.VCVarsAll, args, base)
		if err != nil {
			return finish(StageResult{Kind: "cuda", Stage: StageCompile, FailureID: "msvc-env-missing", Detail: err.Error(), Facts: map[string]string{"vcvarsall": plan.VCVarsAll}})
		}
		env = e.Vars
	}
	src, obj, exe := filepath.Join(dir, "probe.cu"), filepath.Join(dir, "probe.o"), filepath.Join(dir, "probe")
	if plan.GOOS == "windows" {
		obj, exe = filepath.Join(dir, "probe.obj"), filepath.Join(dir, "probe.exe")
	}
	if err := os.WriteFile(src, []byte(cudaSource), 0o644); err != nil {
		return finish(StageResult{Kind: "cuda", Stage: StageCompile, Detail: detail("no-write-source", map[string]string{"err": err.Error()})})
	}

	step := func(stage string, c proc.Cmd) (StageResult, proc.Result, bool) {
		c.Dir, c.Env = dir, env
		res, err := r.Run(ctx, c)
		s := StageResult{Kind: "cuda", Stage: stage, Command: c.String(), Duration: res.Duration}
		switch {
		case res.TimedOut || errors.Is(err, proc.ErrTimeout):
			s.TimedOut = true
			s.Detail = detail("timeout", map[string]string{"timeout": c.Timeout.String()})
			s.Facts = map[string]string{"timeout": c.Timeout.String()}
		case errors.Is(err, proc.ErrNotFound):
			s.Detail = detail("not-found", map[string]string{"name": c.Name})
			if stage == StageCompile {
				s.FailureID = "cuda-toolkit-not-found"
			}
		case err != nil:
			s.Detail = err.Error()
		case res.ExitCode != 0:
			out := res.Combined()
			cl := Classify(out)
			s.FailureID, s.Excerpt = cl.ID, cl.Excerpt
			s.Detail = detail("exit-code", map[string]string{"code": strconv.Itoa(res.ExitCode)})
			s.Output = tail(out, maxOutputTail)
			s.Facts = failureFacts(cl, out)
		default:
			s.OK = true
		}
		return s, res, s.OK
	}

	s, _, ok := step(StageCompile, proc.Cmd{Name: plan.NVCC, Args: plan.CompileArgs(src, obj), Timeout: t.Compile})
	if !ok {
		return finish(s)
	}
	rep.Stages = append(rep.Stages, s)
	s, _, ok = step(StageLink, proc.Cmd{Name: plan.NVCC, Args: plan.LinkArgs(obj, exe), Timeout: t.Link})
	if !ok {
		return finish(s)
	}
	rep.Stages = append(rep.Stages, s)

	s, res, ok := step(StageLoad, proc.Cmd{Name: exe, Args: []string{"load"}, Timeout: t.Load})
	lines := parseProbeOutput(string(res.Stdout))
	if d := cudaError(lines); d != "" {
		s.Detail = d
	}
	for _, l := range lines {
		switch l.stage {
		case "load":
			if v, err := strconv.Atoi(l.kv["runtime_version"]); err == nil && v > 0 {
				rep.RuntimeVersion = v
			} else if v, err := strconv.Atoi(l.kv["built_runtime"]); err == nil && v > 0 {
				rep.RuntimeVersion = v
			}
			if v, err := strconv.Atoi(l.kv["driver_version"]); err == nil && v > 0 {
				rep.DriverVersion = v
			}
		case "device":
			idx, _ := strconv.Atoi(l.kv["index"])
			mem, _ := strconv.ParseUint(l.kv["mem_mib"], 10, 64)
			rep.Devices = append(rep.Devices, CUDADevice{Index: idx, Name: l.kv["name"], CC: l.kv["cc"], MemMiB: mem})
		}
	}
	if ok && len(rep.Devices) == 0 {
		s.OK, s.FailureID, s.Detail = false, "cuda-no-device", detail("no-devices", nil)
	}
	if !s.OK {
		return finish(s)
	}
	s.Detail = detail("cuda-devices", map[string]string{"devices": count("device", len(rep.Devices))})
	rep.Stages = append(rep.Stages, s)

	// Every device runs the kernel: a machine with GPUs of different
	// architectures fails only on the one the build does not cover.
	for _, dev := range rep.Devices {
		run, verify := runDevice(ctx, r, exe, dir, env, t.Run, dev)
		rep.Stages = append(rep.Stages, run, verify)
	}
	return rep
}

// runDevice runs the kernel on one device: the run stage (with the
// bandwidth metrics) and the verify stage.
func runDevice(ctx context.Context, r proc.Runner, exe, dir string, env []string, timeout time.Duration, dev CUDADevice) (StageResult, StageResult) {
	c := proc.Cmd{Name: exe, Args: []string{"run", strconv.Itoa(dev.Index)}, Dir: dir, Env: env, Timeout: timeout}
	res, err := r.Run(ctx, c)
	facts := map[string]string{"device": dev.Name, "cc": dev.CC, "cc_arch": strings.ReplaceAll(dev.CC, ".", "")}
	s := StageResult{Kind: "cuda", Stage: StageRun, Device: dev.Name, Command: c.String(), Duration: res.Duration, Facts: facts}
	verify := StageResult{Kind: "cuda", Stage: StageVerify, Device: dev.Name, Facts: facts}
	lines := parseProbeOutput(string(res.Stdout))
	ran := false
	for _, l := range lines {
		switch l.stage {
		case "run":
			ran = l.kv["ok"] == "1"
		case "verify":
			verify.OK = l.kv["ok"] == "1"
			if !verify.OK {
				verify.Detail = detail("wrong-results", map[string]string{"mismatches": l.kv["mismatches"], "of": l.kv["of"]})
			} else {
				verify.Detail = detail("correct", map[string]string{"elements": l.kv["elements"]})
			}
		case "bandwidth":
			s.Metrics = map[string]float64{}
			for _, k := range []string{"device_gbps", "h2d_gbps", "d2h_gbps"} {
				if v, err := strconv.ParseFloat(l.kv[k], 64); err == nil {
					s.Metrics[k] = v
				}
			}
		}
	}
	if !ran {
		verify.Skipped, verify.Detail = true, detail("skipped-after", map[string]string{"stage": StageRun})
		switch {
		case res.TimedOut || errors.Is(err, proc.ErrTimeout):
			s.TimedOut = true
			s.Detail = detail("timeout", map[string]string{"timeout": timeout.String()})
			s.Facts["timeout"] = timeout.String()
		case err != nil:
			s.Detail = err.Error()
		default:
			out := res.Combined()
			cl := Classify(out)
			s.FailureID, s.Excerpt, s.Output = cl.ID, cl.Excerpt, tail(out, maxOutputTail)
			s.Detail = cudaError(lines)
			if s.Detail == "" {
				s.Detail = detail("exit-no-result", map[string]string{"code": strconv.Itoa(res.ExitCode)})
			}
		}
		return s, verify
	}
	// The kernel ran; a later failure (bandwidth, verify) is not a run failure.
	s.OK = true
	s.Detail = detail("vector-add", map[string]string{"index": strconv.Itoa(dev.Index), "cc": dev.CC})
	if verify.Detail == "" {
		verify.Detail = detail("no-verify", nil)
		verify.TimedOut = res.TimedOut
	}
	return s, verify
}

// cudaError names the CUDA runtime error a failed probe stage printed.
func cudaError(lines []probeLine) string {
	for _, l := range lines {
		if l.kv["ok"] == "0" && l.kv["name"] != "" {
			return fmt.Sprintf("%s (%s) in %s", l.kv["msg"], l.kv["name"], l.kv["api"])
		}
	}
	return ""
}

type probeLine struct {
	stage string
	kv    map[string]string
}

var reKV = regexp.MustCompile(`(\w+)=("[^"]*"|\S*)`)

// parseProbeOutput reads the probe binary's "LLAMACTL <stage> k=v ..." lines.
func parseProbeOutput(out string) []probeLine {
	var lines []probeLine
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		rest, ok := strings.CutPrefix(l, "LLAMACTL ")
		if !ok {
			continue
		}
		stage, kvs, _ := strings.Cut(rest, " ")
		pl := probeLine{stage: stage, kv: map[string]string{}}
		for _, m := range reKV.FindAllStringSubmatch(kvs, -1) {
			pl.kv[m[1]] = strings.Trim(m[2], `"`)
		}
		lines = append(lines, pl)
	}
	return lines
}

// failureFacts adds what the fix text needs: the architecture and the CUDA
// release that brought or removed it, the newest host compiler nvcc takes.
func failureFacts(cl Classification, out string) map[string]string {
	f := map[string]string{}
	switch cl.ID {
	case "nvcc-arch-too-new", "nvcc-arch-dropped":
		arch, added, removed := archFacts(out)
		f["arch"] = arch
		if added != "" {
			f["min_cuda"] = added
		} else {
			f["min_cuda"] = "a newer release (see 'llamactl matrix')"
		}
		if removed != "" {
			f["removed_cuda"] = removed
		} else {
			f["removed_cuda"] = "this release"
		}
	case "nvcc-unsupported-gcc":
		if kind, major := maxHostCompiler(out); major > 0 {
			f["max_gcc"] = strconv.Itoa(major)
			f["max_kind"] = kind
		}
	}
	if len(f) == 0 {
		return nil
	}
	return f
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
