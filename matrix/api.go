package matrix

// This file is the contract other packages (doctor, build, kernels) code
// against. The matrix package's owner fills in the implementation; the types
// and signatures here may grow fields but should not change shape.

// GPUQuery names one GPU: by CC (authoritative, e.g. from NVML) or by name.
type GPUQuery struct {
	Name string `json:"name,omitempty"`
	CC   string `json:"cc,omitempty"` // "8.9"; wins over the name table when set
}

// Query is everything Resolve weighs.
type Query struct {
	GPUs     []GPUQuery `json:"gpus,omitempty"`
	Driver   string     `json:"driver,omitempty"`   // "560.94"
	OS       string     `json:"os,omitempty"`       // "windows" | "linux"
	MSVC     string     `json:"msvc,omitempty"`     // cl version "19.41" (or "19.41.34123")
	GCC      string     `json:"gcc,omitempty"`      // "12" or "12.2"
	Clang    string     `json:"clang,omitempty"`    // "17"
	Toolkits []string   `json:"toolkits,omitempty"` // installed toolkits, "12.4.131"
	// EngineMinCUDA is the pinned engine's minimum CUDA, when known.
	EngineMinCUDA string `json:"engine_min_cuda,omitempty"`
	// AvailableGCC lists host gcc majors installed (e.g. 11, 12) so Resolve
	// can pick an older one as -ccbin / CMAKE_CUDA_HOST_COMPILER.
	AvailableGCC []int `json:"available_gcc,omitempty"`
	// AvailableMSVC lists other installed MSVC toolsets, as cl versions
	// ("19.39") or toolset directories ("14.39.33519"), so Resolve can pick
	// one with -vcvars_ver when the default cl.exe is too new.
	AvailableMSVC []string `json:"available_msvc,omitempty"`
}

// GPULookup is the answer for one GPU name.
type GPULookup struct {
	Query             string   `json:"query"`
	Found             bool     `json:"found"`
	Name              string   `json:"name,omitempty"`
	ComputeCapability string   `json:"compute_capability,omitempty"`
	Arch              string   `json:"arch,omitempty"`
	Source            string   `json:"source,omitempty"`
	Uncertain         bool     `json:"uncertain,omitempty"`
	Closest           []string `json:"closest,omitempty"` // when not found; other rows a short form matched
	// Match says how the name was matched (MatchExact, MatchNormalized,
	// MatchShortForm, MatchCC); empty when not found.
	Match string `json:"match,omitempty"`
}

// Candidate is one acceptable CUDA version and why.
type Candidate struct {
	Version   string   `json:"version"`
	Installed bool     `json:"installed,omitempty"`
	Reasons   []string `json:"reasons,omitempty"`
}

// Blocker is something that stops a working CUDA build, with its fix.
type Blocker struct {
	ID      string `json:"id"`
	Message string `json:"message"`
	Fix     string `json:"fix"`
	// LastResort marks fixes such as -allow-unsupported-compiler: true when
	// LastResortFix holds one.
	LastResort bool `json:"last_resort,omitempty"`
	// LastResortFix is an unsupported way around the blocker (for example
	// -allow-unsupported-compiler), never a default; shown after Fix, marked.
	LastResortFix string `json:"last_resort_fix,omitempty"`
}

// CUDAChoice is the recommended toolkit and all acceptable ones.
type CUDAChoice struct {
	Recommended string      `json:"recommended,omitempty"`
	Acceptable  []Candidate `json:"acceptable,omitempty"`
}

// Resolution is Resolve's answer.
type Resolution struct {
	Schema            int         `json:"schema"`
	OK                bool        `json:"ok"`
	CUDA              CUDAChoice  `json:"cuda"`
	CUDAArchitectures string      `json:"cuda_architectures,omitempty"` // "89-real" or "86-real;89-real"
	GPUs              []GPULookup `json:"gpus,omitempty"`
	// HostCompiler is the host compiler nvcc should use when the default one
	// is too new ("g++-11"), empty when the default is fine.
	HostCompiler string `json:"host_compiler,omitempty"`
	// MSVCToolset is the -vcvars_ver value ("14.39") when an installed
	// older toolset must be used; empty when the default cl.exe fits.
	MSVCToolset string    `json:"msvc_toolset,omitempty"`
	Reasons     []string  `json:"reasons,omitempty"`
	Blockers    []Blocker `json:"blockers,omitempty"`
	// Rejected lists the CUDA versions that do not fit, each with why.
	Rejected []Candidate `json:"rejected,omitempty"`

	// texts are the message IDs and values of every text above
	// (Matrix.Translate renders them in another language).
	texts map[string]textMsg
}
