package plan

import (
	"strconv"
	"strings"

	"github.com/llamactl/llamactl/runner/engine"
)

// ArgvOptions are the non-memory parts of the command line.
type ArgvOptions struct {
	Model string
	Host  string
	Port  int
	Draft string // draft model path
	// DraftMax is the most tokens to draft per step (0: the engine's default).
	DraftMax int
	Extra    []string
	NoMmap   bool
	Pooling  string // embedding models: the model's pooling type
	// RPC are the RPC workers (host:port) the engine offloads to (--rpc).
	RPC []string
}

// Argv renders the plan as llama-server arguments this engine accepts,
// with every memory-relevant value explicit and --fit off, so placement
// does not drift between engine versions. Flag names
// follow the engine's --help (renames: --draft-max → --spec-draft-n-max,
// --no-mmap → --load-mode none, bare -fa → -fa on, -md with --spec-type).
func Argv(p Plan, caps engine.Caps, o ArgvOptions) []string {
	a := []string{"-m", o.Model,
		"-c", strconv.FormatUint(p.Ctx, 10),
		"-ngl", strconv.Itoa(p.NGL),
		"-b", strconv.Itoa(p.Batch),
		"-ub", strconv.Itoa(p.UBatch),
		"-t", strconv.Itoa(p.Threads),
	}
	if p.ThreadsBatch > 0 && p.ThreadsBatch != p.Threads {
		a = append(a, "-tb", strconv.Itoa(p.ThreadsBatch))
	}
	switch {
	case caps.FlashAttnArg:
		a = append(a, "-fa", p.FlashAttn)
	case p.FlashAttn == "on":
		a = append(a, "-fa") // older builds: a bare switch
	}
	if caps.CacheTypes {
		a = append(a, "-ctk", p.CacheK, "-ctv", p.CacheV)
	}
	if p.NCPUMoE > 0 {
		a = append(a, "--n-cpu-moe", strconv.Itoa(p.NCPUMoE))
	}
	if p.NoOpOffload {
		a = append(a, "--no-op-offload")
	}
	if p.SplitMode == "none" {
		a = append(a, "-sm", "none", "-mg", strconv.Itoa(p.MainGPU))
	}
	if len(p.TensorSplit) > 0 {
		parts := make([]string, len(p.TensorSplit))
		for i, n := range p.TensorSplit {
			parts[i] = strconv.Itoa(n)
		}
		a = append(a, "-ts", strings.Join(parts, ","))
	}
	if caps.Fit {
		a = append(a, "--fit", "off")
	}
	if p.Parallel > 0 && caps.Flags["-np"] {
		a = append(a, "-np", strconv.Itoa(p.Parallel))
	}
	if o.NoMmap {
		if caps.LoadMode {
			a = append(a, "--load-mode", "none")
		} else {
			a = append(a, "--no-mmap")
		}
	}
	if p.Embedding && caps.Embedding {
		a = append(a, "--embedding")
		if o.Pooling != "" && caps.Flags["--pooling"] {
			a = append(a, "--pooling", o.Pooling)
		}
	}
	if o.Draft != "" {
		a = append(a, "-md", o.Draft)
		if caps.SpecType {
			a = append(a, "--spec-type", "draft-simple")
		}
		if p.NGL > 0 {
			a = append(a, "-ngld", "99")
		}
		if o.DraftMax > 0 {
			name := "--draft-max" // renamed in 2026 builds (ggml-org/llama.cpp PR #22397)
			if caps.SpecDraftN {
				name = "--spec-draft-n-max"
			}
			a = append(a, name, strconv.Itoa(o.DraftMax))
		}
	}
	if o.Host != "" {
		a = append(a, "--host", o.Host)
	}
	if o.Port > 0 {
		a = append(a, "--port", strconv.Itoa(o.Port))
	}
	if caps.Verbosity {
		// Level 4 prints the buffer sizes we compare with the prediction.
		a = append(a, "-lv", "4")
	}
	if len(o.RPC) > 0 {
		a = append(a, "--rpc", strings.Join(o.RPC, ","))
	}
	return append(a, o.Extra...)
}
