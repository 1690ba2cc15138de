package matrix

import "github.com/llamactl/llamactl/machine"

// Selection is what a build should use on this machine: backend, CUDA
// toolkit, architectures and host compiler. doctor.SelectFor fills it from
// the installed toolkits and Resolve; build's planner (build/plan) and the
// kernel probes (kernels) read it. It is doctor --json's "selection" and
// build --json's (without resolution, gpus and requested).
type Selection struct {
	Backend           string               `json:"backend"`        // cuda|vulkan|hip|opencl|cpu
	CUDA              string               `json:"cuda,omitempty"` // recommended toolkit version
	Toolkit           *machine.CUDAToolkit `json:"toolkit,omitempty"`
	CUDAArchitectures string               `json:"cuda_architectures,omitempty"` // "89-real"
	HostCompiler      string               `json:"host_compiler,omitempty"`      // nvcc -ccbin; empty = default
	MSVCToolset       string               `json:"msvc_toolset,omitempty"`       // -vcvars_ver value, e.g. "14.39"
	VCVarsAll         string               `json:"vcvarsall,omitempty"`
	Reasons           []string             `json:"reasons,omitempty"`
	Resolution        *Resolution          `json:"resolution,omitempty"`
	// GPUs is the per-GPU view: CC and the architecture each needs.
	GPUs []SelectedGPU `json:"gpus,omitempty"`
	// Requested is the backend the user asked for, when it differs from Backend.
	Requested string `json:"requested,omitempty"`

	// Installed is the installed toolkit the selection weighed (Toolkit is
	// nil when it cannot build) and Problems why it cannot: computed once,
	// read by doctor's cuda.select check; not part of the JSON.
	Installed *machine.CUDAToolkit `json:"-"`
	Problems  []string             `json:"-"`
}

// SelectedGPU is one GPU in the selection.
type SelectedGPU struct {
	Index             int    `json:"index"`
	Name              string `json:"name"`
	ComputeCapability string `json:"compute_capability,omitempty"`
	Architecture      string `json:"cuda_architecture,omitempty"` // "89-real"
	MinCUDA           string `json:"min_cuda,omitempty"`          // oldest toolkit that targets it
	MaxCUDA           string `json:"max_cuda,omitempty"`          // newest toolkit that still targets it
}
