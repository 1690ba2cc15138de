package kernels

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/llamactl/llamactl/matrix"

	"github.com/llamactl/llamactl/machine"
)

// Arch is one CUDA architecture target, in CMake's CUDA_ARCHITECTURES
// terms: Real embeds SASS (sm_XX), Virtual embeds PTX (compute_XX).
type Arch struct {
	Num     string `json:"num"` // "89", "100a", "120f"
	Real    bool   `json:"real"`
	Virtual bool   `json:"virtual"`
}

var reArchNum = regexp.MustCompile(`^[1-9][0-9]{1,2}[af]?$`)

// ParseArch reads one architecture the way CMake and nvcc users write it:
// "89" (SASS+PTX, CMake's default), "89-real", "89-virtual", "sm_89"
// (SASS), "compute_89" (PTX).
func ParseArch(s string) (Arch, error) {
	s = strings.TrimSpace(s)
	a := Arch{Real: true, Virtual: true}
	switch {
	case strings.HasPrefix(s, "sm_"):
		s, a.Virtual = strings.TrimPrefix(s, "sm_"), false
	case strings.HasPrefix(s, "compute_"):
		s, a.Real = strings.TrimPrefix(s, "compute_"), false
	case strings.HasSuffix(s, "-real"):
		s, a.Virtual = strings.TrimSuffix(s, "-real"), false
	case strings.HasSuffix(s, "-virtual"):
		s, a.Real = strings.TrimSuffix(s, "-virtual"), false
	}
	if s == "native" || s == "all" || s == "all-major" {
		return Arch{}, fmt.Errorf("architecture %q is resolved by CMake at build time; the probe needs explicit ones such as sm_89 or 86-real", s)
	}
	if !reArchNum.MatchString(s) {
		return Arch{}, fmt.Errorf("%q is not a CUDA architecture: write it as 89, 89-real, sm_89 or compute_89", s)
	}
	a.Num = s
	return a, nil
}

// ParseArchList reads a CMAKE_CUDA_ARCHITECTURES value ("86-real;89-real")
// or a comma-separated flag value.
func ParseArchList(s string) ([]Arch, error) {
	var out []Arch
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' || r == ' ' }) {
		a, err := ParseArch(f)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// Gencode is the nvcc flag CMake generates for this architecture
// (CMake's Modules/Compiler/NVIDIA-CUDA.cmake writes
// --generate-code=arch=compute_XX,code=[compute_XX,sm_XX]).
func (a Arch) Gencode() string {
	var codes []string
	if a.Virtual {
		codes = append(codes, "compute_"+a.Num)
	}
	if a.Real {
		codes = append(codes, "sm_"+a.Num)
	}
	return "--generate-code=arch=compute_" + a.Num + ",code=[" + strings.Join(codes, ",") + "]"
}

// String renders the CMake spelling.
func (a Arch) String() string {
	switch {
	case a.Real && a.Virtual:
		return a.Num
	case a.Real:
		return a.Num + "-real"
	}
	return a.Num + "-virtual"
}

// ArchList renders archs the way CMAKE_CUDA_ARCHITECTURES takes them.
func ArchList(as []Arch) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = a.String()
	}
	return strings.Join(s, ";")
}

// Timeouts bound each stage; a stage that runs past its deadline is killed.
type Timeouts struct {
	Version time.Duration `json:"version_ns"`
	Compile time.Duration `json:"compile_ns"`
	Link    time.Duration `json:"link_ns"`
	Load    time.Duration `json:"load_ns"`
	Run     time.Duration `json:"run_ns"`
	OpenCL  time.Duration `json:"opencl_ns"`
}

// DefaultTimeouts are generous for a cold Windows machine where antivirus
// scans every file nvcc writes; a healthy Linux box needs a few seconds.
var DefaultTimeouts = Timeouts{
	Version: 20 * time.Second,
	Compile: 3 * time.Minute,
	Link:    90 * time.Second,
	Load:    30 * time.Second,
	Run:     60 * time.Second,
	OpenCL:  60 * time.Second,
}

// Choice is the selection the probes compile with (doctor's, or one a test
// builds): the one selection type, matrix.Selection.
type Choice = matrix.Selection

// Overrides are explicit flags (`llamactl probe --nvcc --ccbin --arch`);
// they win over the selection, so CI can pin each case.
type Overrides struct {
	NVCC  string
	CCBin string
	Arch  string // list, same syntax as ParseArchList
}

// CUDAPlan is exactly what the CUDA probe runs.
type CUDAPlan struct {
	NVCC           string   `json:"nvcc"`
	ToolkitVersion string   `json:"toolkit_version,omitempty"`
	CCBin          string   `json:"ccbin,omitempty"`
	Archs          []Arch   `json:"archs"`
	VCVarsAll      string   `json:"vcvarsall,omitempty"`
	MSVCToolset    string   `json:"msvc_toolset,omitempty"`
	GOOS           string   `json:"goos"`
	Env            []string `json:"-"` // nil inherits llamactl's
	Timeouts       Timeouts `json:"-"`
}

// Gencodes returns the -gencode flags in plan order.
func (p CUDAPlan) Gencodes() []string {
	out := make([]string, len(p.Archs))
	for i, a := range p.Archs {
		out[i] = a.Gencode()
	}
	return out
}

func (p CUDAPlan) common() []string {
	var args []string
	if p.CCBin != "" {
		args = append(args, "-ccbin", p.CCBin)
	}
	return append(args, p.Gencodes()...)
}

// CompileArgs is the nvcc command line of the compile stage.
func (p CUDAPlan) CompileArgs(src, obj string) []string {
	return append(p.common(), "-c", src, "-o", obj)
}

// LinkArgs is the nvcc command line of the link stage.
func (p CUDAPlan) LinkArgs(obj, exe string) []string {
	return append(p.common(), obj, "-o", exe)
}

// ErrSkip explains why a probe cannot run (no nvcc, no architecture): a
// skipped finding, not a failure.
type ErrSkip struct{ Key, Reason string }

func (e *ErrSkip) Error() string { return e.Reason }

// PlanCUDA chooses nvcc, host compiler and architectures: overrides, then
// the selection, then the snapshot. lookPath finds nvcc on PATH as last resort.
func PlanCUDA(snap *machine.Snapshot, ch Choice, ov Overrides, goos string, lookPath func(string) (string, error)) (CUDAPlan, error) {
	p := CUDAPlan{GOOS: goos, CCBin: ch.HostCompiler, VCVarsAll: ch.VCVarsAll, MSVCToolset: ch.MSVCToolset, Timeouts: DefaultTimeouts}
	switch {
	case ov.NVCC != "":
		p.NVCC = ov.NVCC
		for _, tk := range toolkits(snap) {
			if tk.NVCC == ov.NVCC {
				p.ToolkitVersion = tk.Version
			}
		}
	case ch.Toolkit != nil && ch.Toolkit.NVCC != "":
		p.NVCC, p.ToolkitVersion = ch.Toolkit.NVCC, ch.Toolkit.Version
	case len(toolkits(snap)) > 0 && toolkits(snap)[0].NVCC != "":
		p.NVCC, p.ToolkitVersion = snap.Toolkits[0].NVCC, snap.Toolkits[0].Version
	default:
		if lookPath != nil {
			if path, err := lookPath("nvcc"); err == nil {
				p.NVCC = path
			}
		}
	}
	if p.NVCC == "" {
		return p, &ErrSkip{Key: "skipped-no-nvcc", Reason: "no nvcc: not in the selection, the snapshot or on PATH"}
	}
	if ov.CCBin != "" {
		p.CCBin = ov.CCBin
	}
	archSpec := ch.CUDAArchitectures
	if ov.Arch != "" {
		archSpec = ov.Arch
	}
	if archSpec == "" {
		archSpec = archsFromGPUs(snap)
	}
	if archSpec == "" {
		return p, &ErrSkip{Key: "skipped-no-arch", Reason: "no CUDA architecture: no NVIDIA GPU in the snapshot and none selected (--arch)"}
	}
	archs, err := ParseArchList(archSpec)
	if err != nil {
		return p, err
	}
	p.Archs = archs
	return p, nil
}

func toolkits(s *machine.Snapshot) []machine.CUDAToolkit {
	if s == nil {
		return nil
	}
	return s.Toolkits
}

// archsFromGPUs builds "86-real;89-real" from the GPUs' compute capabilities
// (NVML's value), the way build picks SASS for each installed GPU.
func archsFromGPUs(s *machine.Snapshot) string {
	if s == nil {
		return ""
	}
	var nums []string
	for _, g := range s.NVIDIA.GPUs {
		n := strings.ReplaceAll(g.ComputeCapability, ".", "")
		if reArchNum.MatchString(n) && !slices.Contains(nums, n+"-real") {
			nums = append(nums, n+"-real")
		}
	}
	slices.Sort(nums)
	return strings.Join(nums, ";")
}
