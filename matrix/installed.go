package matrix

import (
	"sort"
	"strconv"
	"strings"

	ver "github.com/llamactl/llamactl/internal/version"
)

// This file is the part of Resolve that weighs the machine's installed
// toolkits and host compilers (Query.Installed and friends) and answers
// Resolution.Choice: which installed toolkit a build uses, why it cannot,
// the CUDA version to build with or install, the architectures and the
// host compiler. doctor hands the machine's facts over and renders the
// answer; it chooses nothing itself.

// InstalledToolkit is one CUDA toolkit installed on the machine, with what
// the probes recorded about it.
type InstalledToolkit struct {
	Version string `json:"version"`        // nvcc --version: "12.4.131"
	Root    string `json:"root,omitempty"` // install folder: tells two copies of one version apart
	// Active marks the toolkit a build finds by default (CUDA_PATH, nvcc on
	// PATH, /usr/local/cuda); the newest is taken when none is marked.
	Active   bool     `json:"active,omitempty"`
	GPUArchs []string `json:"gpu_archs,omitempty"` // nvcc --list-gpu-arch, when recorded
	Distro   bool     `json:"distro,omitempty"`    // a distribution's package, built for its own glibc
}

// Compiler is one installed host C++ compiler.
type Compiler struct {
	Path    string `json:"path"`
	Version string `json:"version,omitempty"`
	Major   int    `json:"major,omitempty"`
}

// Problem is why an installed toolkit cannot build on this machine: an ID
// (ProblemCannotTarget...) and its values as key, value pairs, which the
// caller renders in its own words.
type Problem struct {
	ID     string   `json:"id"`
	Values []string `json:"values,omitempty"`
}

// Problem IDs.
const (
	ProblemCannotTarget = "cannot-target"  // version, gpu, cc
	ProblemDriverTooOld = "driver-too-old" // version, api
	ProblemGlibc        = "glibc"          // version, glibc, min
	ProblemMSVCTooNew   = "msvc-too-new"   // version, cl
	ProblemMSVCTooOld   = "msvc-too-old"   // version, cl, min
	ProblemGCCTooNew    = "gcc-too-new"    // version, gcc, max
)

// Choice is Resolve's answer for the machine's installed toolkits.
type Choice struct {
	// Toolkit is the index in Query.Installed of the toolkit a build uses:
	// the active one when it works for every GPU, else the newest that
	// does, else the active one with the Problems that stop it; -1 when
	// none is installed.
	Toolkit  int
	Works    bool
	Problems []Problem
	// CUDA is the version to build with (Toolkit's when it Works) or to
	// install; "" when nothing fits or no GPU was given.
	CUDA              string
	CUDAArchitectures string // "86-real;89-real"; "" when no GPU was given
	// HostCompiler is the path of the g++ nvcc must use with Toolkit
	// (-ccbin) because the default one is newer than GCCMax; "" = default.
	HostCompiler string
	GCCMax       int
	// MSVCToolset is the -vcvars_ver value ("14.39") Toolkit needs because
	// the default cl.exe is too new for it; "" = default.
	MSVCToolset string
	// GPUs is Query.GPUs with the architecture each needs and the CUDA
	// minors whose nvcc targets it (Index is the position in Query.GPUs).
	GPUs []SelectedGPU
}

// MinorFacts is what the checks need of one CUDA minor, taken from the
// release that represents it (the minor's newest update with a known driver).
type MinorFacts struct {
	CUDA          string // "12.4"
	GCCMax        int    // newest gcc major nvcc accepts; 0 when the matrix does not know
	MSCVerMin     int    // oldest _MSC_VER nvcc accepts; 0 when unknown
	MSCVerMaxExcl int    // _MSC_VER nvcc rejects from; 0 when unknown
	SM            []int  // real targets
	Release       string // the release read ("12.4.1")
}

// MinorRows is one row per CUDA minor the matrix knows, oldest first.
func (m *Matrix) MinorRows() []MinorFacts {
	var rows []MinorFacts
	for _, mv := range m.Minors() {
		t, ok := m.Toolkit(mv)
		if !ok {
			continue
		}
		r := MinorFacts{CUDA: mv, SM: t.SM, Release: t.Version}
		if n, _, ok := m.GCCMaxMajor(t); ok {
			r.GCCMax = n
		}
		if t.MSCVerMin != nil {
			r.MSCVerMin = *t.MSCVerMin
		}
		if t.MSCVerMaxExclusive != nil {
			r.MSCVerMaxExcl = *t.MSCVerMaxExclusive
		}
		rows = append(rows, r)
	}
	return rows
}

// MinorOf is the row of a toolkit version's major.minor; for a CUDA 13+
// release newer than the table the newest row of the same major stands in.
func (m *Matrix) MinorOf(v string) (MinorFacts, bool) { return minorOf(m.MinorRows(), v) }

func minorOf(rows []MinorFacts, v string) (MinorFacts, bool) {
	mm := ver.MajorMinor(v)
	best := -1
	for i, r := range rows {
		if r.CUDA == mm {
			return r, true
		}
		if ver.Major(r.CUDA) == ver.Major(mm) && ver.Compare(r.CUDA, mm) < 0 {
			best = i
		}
	}
	if best >= 0 && ver.Major(mm) >= 13 {
		return rows[best], true
	}
	return MinorFacts{}, false
}

// STLMinCUDA is the oldest CUDA the MSVC STL of cl version accepts ("" when
// no gate): the STL rule (rules.json stl, error STL1002) with the highest
// _MSC_VER floor at or below cl's. A cl newer than every rule keeps the
// newest rule, since the STL never relaxes its check.
func (m *Matrix) STLMinCUDA(cl string) string {
	msc := MSCVer(cl)
	need, best := "", 0
	for _, r := range m.STL {
		if r.MSCVerMin <= msc && r.MSCVerMin >= best {
			need, best = r.RequiresCUDA, r.MSCVerMin
		}
	}
	return need
}

// MinCUDAForCL is the oldest CUDA minor whose nvcc (host_config.h) and
// the MSVC STL (STL1002) both accept cl version cl; "" when none does.
func (m *Matrix) MinCUDAForCL(cl string) string {
	stl := m.STLMinCUDA(cl)
	for _, r := range m.MinorRows() {
		if r.MSCVerMaxExcl > MSCVer(cl) && (stl == "" || ver.Compare(r.CUDA, stl) >= 0) {
			return r.CUDA
		}
	}
	return ""
}

// OlderToolset is the newest installed MSVC toolset family ("14.39") below
// the _MSC_VER limit maxExcl that a toolkit of tkVersion accepts
// (host_config.h and the STL), for -vcvars_ver; "" when none.
func (m *Matrix) OlderToolset(toolsets []string, maxExcl int, tkVersion string) string {
	best := ""
	for _, t := range toolsets {
		cl := ToolsetCL(t)
		if cl == "" || MSCVer(cl) >= maxExcl {
			continue
		}
		if need := m.STLMinCUDA(cl); need != "" && ver.Compare(tkVersion, need) < 0 {
			continue
		}
		if fam := ver.MajorMinor(t); best == "" || ver.Compare(fam, best) > 0 {
			best = fam
		}
	}
	return best
}

// Targets says whether an installed toolkit compiles for compute
// capability cc, and whether that is known: nvcc --list-gpu-arch when
// recorded, else the matrix row of its minor.
func (m *Matrix) Targets(tk InstalledToolkit, cc string) (ok, known bool) {
	return targets(m.MinorRows(), tk, cc)
}

func targets(rows []MinorFacts, tk InstalledToolkit, cc string) (bool, bool) {
	sm := SM(cc)
	if sm == 0 {
		return false, false
	}
	if len(tk.GPUArchs) > 0 {
		want := "compute_" + strconv.Itoa(sm)
		for _, a := range tk.GPUArchs {
			if a == want || a == "sm_"+strconv.Itoa(sm) {
				return true, true
			}
		}
		return false, true
	}
	row, ok := minorOf(rows, tk.Version)
	if !ok {
		return false, false
	}
	return containsInt(row.SM, sm), true
}

// CUDARange is the oldest and newest CUDA minor of the matrix whose nvcc
// targets cc ("" when none or cc is not a compute capability).
func (m *Matrix) CUDARange(cc string) (lo, hi string) { return cudaRange(m.MinorRows(), cc) }

func cudaRange(rows []MinorFacts, cc string) (lo, hi string) {
	sm := SM(cc)
	if sm == 0 {
		return "", ""
	}
	for _, r := range rows {
		if containsInt(r.SM, sm) {
			if lo == "" {
				lo = r.CUDA
			}
			hi = r.CUDA
		}
	}
	return lo, hi
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// chooser weighs Query.Installed.
type chooser struct {
	m    *Matrix
	q    Query
	rows []MinorFacts
	win  bool
	msvc string // the default cl version, on Windows
}

func (r *resolver) choose(res *Resolution) Choice {
	c := &chooser{m: r.m, q: r.q, rows: r.m.MinorRows(), win: r.os == "windows"}
	if c.win {
		c.msvc = r.q.MSVC
	}
	out := Choice{Toolkit: -1}
	var sms []int
	for i, g := range c.q.GPUs {
		sg := SelectedGPU{Index: i, Name: g.Name, ComputeCapability: g.CC}
		if sm := SM(g.CC); sm != 0 {
			sg.Architecture = strconv.Itoa(sm) + "-real"
			if !containsInt(sms, sm) {
				sms = append(sms, sm)
			}
		}
		sg.MinCUDA, sg.MaxCUDA = cudaRange(c.rows, g.CC)
		out.GPUs = append(out.GPUs, sg)
	}

	tk, problems := c.chooseToolkit()
	out.Toolkit, out.Problems = tk, problems
	out.Works = tk >= 0 && len(problems) == 0
	if tk >= 0 {
		c.hostCompiler(c.q.Installed[tk], &out)
	}
	if len(c.q.GPUs) == 0 {
		return out
	}
	sort.Ints(sms)
	archs := make([]string, len(sms))
	for i, sm := range sms {
		archs[i] = strconv.Itoa(sm) + "-real"
	}
	out.CUDAArchitectures = strings.Join(archs, ";")
	if res.CUDAArchitectures != "" {
		out.CUDAArchitectures = res.CUDAArchitectures
	}
	if out.Works {
		out.CUDA = c.q.Installed[tk].Version
		return out
	}
	out.CUDA = c.newestFit()
	// Resolve's recommendation, unless this glibc's math headers reject it.
	if rec := res.CUDA.Recommended; rec != "" && (c.q.GlibcMinCUDA == "" || ver.Compare(ver.MajorMinor(rec), c.q.GlibcMinCUDA) >= 0) {
		out.CUDA = rec
	}
	return out
}

// active is the index of the toolkit a build finds by default.
func (c *chooser) active() int {
	best := -1
	for i, tk := range c.q.Installed {
		if tk.Active {
			return i
		}
		if best < 0 || ver.Compare(tk.Version, c.q.Installed[best].Version) > 0 {
			best = i
		}
	}
	return best
}

// chooseToolkit: the active toolkit when it works for every GPU, else the
// newest one that does, else the active one with its problems. Each
// toolkit's problems are computed once.
func (c *chooser) chooseToolkit() (int, []Problem) {
	act := c.active()
	if act < 0 {
		return -1, nil
	}
	a := c.q.Installed[act]
	actProblems := c.problems(a)
	if len(actProblems) == 0 {
		return act, nil
	}
	best := -1
	for i, tk := range c.q.Installed {
		if best >= 0 && ver.Compare(tk.Version, c.q.Installed[best].Version) <= 0 {
			continue
		}
		if i == act || tk.Version == a.Version && tk.Root == a.Root {
			continue // its problems are actProblems
		}
		if len(c.problems(tk)) == 0 {
			best = i
		}
	}
	if best >= 0 {
		return best, nil
	}
	return act, actProblems
}

func problem(id string, kv ...string) Problem { return Problem{ID: id, Values: kv} }

// glibcBlocks says the toolkit's math headers fail with this glibc (a
// distribution's own package is built for its glibc).
func (c *chooser) glibcBlocks(tk InstalledToolkit) bool {
	need := c.q.GlibcMinCUDA
	return need != "" && ver.Compare(ver.MajorMinor(tk.Version), need) < 0 && !tk.Distro
}

// problems lists why an installed toolkit cannot build for these GPUs on
// this machine.
func (c *chooser) problems(tk InstalledToolkit) []Problem {
	var out []Problem
	for _, g := range c.q.GPUs {
		if ok, known := targets(c.rows, tk, g.CC); known && !ok {
			out = append(out, problem(ProblemCannotTarget, "version", tk.Version, "gpu", g.Name, "cc", g.CC))
		}
	}
	if api := c.q.DriverCUDA; api != "" && ver.Compare(ver.MajorMinor(tk.Version), api) > 0 {
		out = append(out, problem(ProblemDriverTooOld, "version", tk.Version, "api", api))
	}
	if c.glibcBlocks(tk) {
		out = append(out, problem(ProblemGlibc, "version", tk.Version, "glibc", c.q.Glibc, "min", c.q.GlibcMinCUDA))
	}
	row, known := minorOf(c.rows, tk.Version)
	if c.win {
		if c.msvc != "" {
			cl := c.msvc
			if known && row.MSCVerMaxExcl > 0 && MSCVer(cl) >= row.MSCVerMaxExcl && c.m.OlderToolset(c.q.MSVCToolsets, row.MSCVerMaxExcl, tk.Version) == "" {
				out = append(out, problem(ProblemMSVCTooNew, "version", tk.Version, "cl", cl))
			}
			if msc := MSCVer(cl); known && row.MSCVerMin > 0 && msc > 0 && msc < row.MSCVerMin {
				out = append(out, problem(ProblemMSVCTooOld, "version", tk.Version, "cl", cl, "min", CLVersion(row.MSCVerMin)))
			}
		}
	} else if def := c.q.DefaultGXX; known && def != nil && row.GCCMax > 0 && def.Major > row.GCCMax {
		ok := false
		for _, o := range c.q.OtherGXX {
			ok = ok || (o.Major > 0 && o.Major <= row.GCCMax)
		}
		if !ok {
			out = append(out, problem(ProblemGCCTooNew, "version", tk.Version, "gcc", def.Version, "max", strconv.Itoa(row.GCCMax)))
		}
	}
	return out
}

// newestFit is the newest minor of the matrix that targets every GPU, that
// the driver runs, that this glibc's headers accept and that the host
// compiler accepts.
func (c *chooser) newestFit() string {
	best := ""
	for _, r := range c.rows {
		ok := true
		for _, g := range c.q.GPUs {
			if sm := SM(g.CC); sm != 0 && !containsInt(r.SM, sm) {
				ok = false
			}
		}
		if api := c.q.DriverCUDA; api != "" && ver.Compare(r.CUDA, api) > 0 {
			ok = false
		}
		if need := c.q.GlibcMinCUDA; need != "" && ver.Compare(r.CUDA, need) < 0 {
			ok = false
		}
		if c.win && c.msvc != "" {
			cl := c.msvc
			if r.MSCVerMaxExcl > 0 && MSCVer(cl) >= r.MSCVerMaxExcl {
				ok = false
			}
			if msc := MSCVer(cl); r.MSCVerMin > 0 && msc > 0 && msc < r.MSCVerMin {
				ok = false
			}
			if need := c.m.STLMinCUDA(cl); need != "" && ver.Compare(r.CUDA, need) < 0 {
				ok = false
			}
		}
		if ok {
			best = r.CUDA
		}
	}
	return best
}

// hostCompiler fills the host compiler nvcc must use with tk.
func (c *chooser) hostCompiler(tk InstalledToolkit, out *Choice) {
	row, ok := minorOf(c.rows, tk.Version)
	if !ok {
		return
	}
	if c.win {
		if c.msvc == "" || row.MSCVerMaxExcl == 0 {
			return
		}
		if MSCVer(c.msvc) >= row.MSCVerMaxExcl {
			out.MSVCToolset = c.m.OlderToolset(c.q.MSVCToolsets, row.MSCVerMaxExcl, tk.Version)
		}
		return
	}
	def := c.q.DefaultGXX
	if row.GCCMax == 0 || def == nil || def.Major <= row.GCCMax {
		return
	}
	for _, o := range c.q.OtherGXX {
		if o.Major <= row.GCCMax && o.Major > 0 {
			out.HostCompiler, out.GCCMax = o.Path, row.GCCMax
			return
		}
	}
}
