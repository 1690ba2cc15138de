package matrix

import (
	"sort"
	"strconv"
	"strings"
)

// Blocker IDs: stable, so doctor findings, docs and translations can key on them.
const (
	BlockGPUUnknown      = "gpu-unknown"
	BlockGPUTooNew       = "gpu-arch-too-new"
	BlockGPUTooOld       = "gpu-arch-too-old"
	BlockGPUNotTarget    = "gpu-arch-not-a-target"
	BlockDriverFamily    = "driver-below-family-floor"
	BlockMSVCTooNew      = "msvc-too-new"
	BlockMSVCTooOld      = "msvc-too-old"
	BlockMSVCSTL         = "msvc-stl-needs-newer-cuda"
	BlockGCCTooNew       = "gcc-too-new"
	BlockClangTooNew     = "clang-too-new"
	BlockEngineMinCUDA   = "engine-needs-newer-cuda"
	BlockToolkitUnknown  = "toolkit-unknown"
	BlockNoToolkitWorks  = "no-cuda-version-fits"
	BlockInvalidQueryArg = "invalid-input"
)

// gpuTarget is one GPU as Resolve sees it.
type gpuTarget struct {
	label string // "NVIDIA GeForce GTX 1080 Ti (6.1)"
	sm    int
}

type evaluation struct {
	t           *ToolkitFacts
	cand        Candidate
	fails       []Blocker
	minorCompat bool // driver older than the toolkit's own: no PTX JIT, limited features
	host        string
	toolset     string // -vcvars_ver when an installed older MSVC toolset fits
}

type resolver struct {
	m        *Matrix
	q        Query
	os       string // whose compilers: windows, linux or "" (unknown)
	driverOS string // whose driver numbering: as os, but windows under WSL
	gpus     []gpuTarget
	driver   version
	msc      int
	altMSVC  []int        // installed cl versions besides the default, newest first
	familyOK map[int]bool // familyWorks cache
	gcc      int
	clang    int
	engine   version
	reps     []*ToolkitFacts
	reasons  []string
	blockers []Blocker
}

// Resolve picks the CUDA version, CMAKE_CUDA_ARCHITECTURES and host compiler
// for a machine, or says what blocks a working CUDA build and how to fix it.
func (m *Matrix) Resolve(q Query) Resolution {
	rm := *m
	rm.rec = map[string]textMsg{} // every text's ID, for Translate
	m = &rm
	r := &resolver{m: m, q: q}
	r.reps, _ = m.minors()
	r.parseQuery()

	var evals []*evaluation
	installed := false
	seen := map[string]bool{}
	for _, tv := range q.Toolkits {
		t, ok := m.Toolkit(tv)
		if !ok {
			r.blockers = append(r.blockers, Blocker{ID: BlockToolkitUnknown,
				Message: m.Text("toolkit-unknown.message", "version", tv),
				Fix:     m.Text("toolkit-unknown.fix", "newest", m.Toolkits[len(m.Toolkits)-1].MinorVersion())})
			continue
		}
		if seen[tv] {
			continue
		}
		seen[tv] = true
		installed = true
		e := r.evaluate(t)
		e.cand.Version, e.cand.Installed = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(tv), "V"), "v"), true
		if e.cand.Version != t.Version {
			e.cand.Reasons = append([]string{m.Text("reason.installed-build", "version", e.cand.Version, "minor", t.MinorVersion(), "label", t.Label)}, e.cand.Reasons...)
		}
		evals = append(evals, e)
	}
	for _, t := range r.reps {
		evals = append(evals, r.evaluate(t))
	}

	res := Resolution{Schema: 1}
	var ok []*evaluation
	for _, e := range evals {
		if len(e.fails) == 0 {
			ok = append(ok, e)
		} else {
			c := e.cand
			c.Reasons = nil
			for _, f := range e.fails {
				c.Reasons = append(c.Reasons, f.Message)
			}
			res.Rejected = append(res.Rejected, c)
		}
	}
	// Installed toolkits first, then newest first.
	sort.SliceStable(ok, func(i, j int) bool {
		if ok[i].cand.Installed != ok[j].cand.Installed {
			return ok[i].cand.Installed
		}
		return ok[i].t.v.Compare(ok[j].t.v) > 0
	})
	dedup := map[string]bool{}
	for _, e := range ok {
		if !e.cand.Installed && dedup[e.t.MinorVersion()] {
			continue
		}
		if e.cand.Installed {
			dedup[e.t.MinorVersion()] = true
		}
		res.CUDA.Acceptable = append(res.CUDA.Acceptable, e.cand)
	}

	best := r.pick(ok)
	if best != nil {
		res.CUDA.Recommended = best.cand.Version
		res.HostCompiler = best.host
		res.MSVCToolset = best.toolset
		res.CUDAArchitectures = r.architectures(best.t)
		r.reasons = append(r.reasons, r.why(best, installed)...)
	}

	// What stops the user: the installed toolkits' failures when none of
	// them works, or, when nothing works at all, the failures of the
	// closest candidate (fewest failures, newest first).
	switch {
	case best == nil:
		var closest *evaluation
		for _, e := range evals {
			if installed && !e.cand.Installed {
				continue // the installed toolkits are what the user has to fix
			}
			if closest == nil || closerFit(e, closest) {
				closest = e
			}
		}
		if closest != nil {
			r.blockers = append(r.blockers, Blocker{ID: BlockNoToolkitWorks,
				Message: m.Text("no-cuda-version-fits.message"),
				Fix:     m.Text("no-cuda-version-fits.fix", "minor", closest.t.MinorVersion())})
			r.blockers = append(r.blockers, closest.fails...)
		}
	case installed && !best.cand.Installed:
		for _, e := range evals {
			if e.cand.Installed {
				for _, f := range e.fails {
					f.Message = m.Text("installed.prefix", "version", e.cand.Version, "message", f.Message)
					r.blockers = append(r.blockers, f)
				}
			}
		}
	}
	res.Blockers = dedupBlockers(r.blockers)
	res.Reasons = r.reasons
	res.GPUs = r.lookups()
	res.OK = best != nil && len(res.Blockers) == 0
	res.texts = m.rec
	return res
}

// closerFit says a needs less change than b: fewer blockers; when both are
// blocked only by the driver's family floor, the older CUDA major (a lower
// floor, so a smaller driver update); otherwise the newer toolkit.
func closerFit(a, b *evaluation) bool {
	if len(a.fails) != len(b.fails) {
		return len(a.fails) < len(b.fails)
	}
	if onlyDriverFloor(a) && onlyDriverFloor(b) && a.t.v.At(0) != b.t.v.At(0) {
		return a.t.v.At(0) < b.t.v.At(0)
	}
	return a.t.v.Compare(b.t.v) > 0
}

func onlyDriverFloor(e *evaluation) bool {
	for _, f := range e.fails {
		if f.ID != BlockDriverFamily {
			return false
		}
	}
	return len(e.fails) > 0
}

func dedupBlockers(bs []Blocker) []Blocker {
	seen := map[string]bool{}
	var out []Blocker
	for _, b := range bs {
		k := b.ID + "\x00" + b.Message
		if !seen[k] {
			seen[k] = true
			b.LastResort = b.LastResortFix != ""
			out = append(out, b)
		}
	}
	return out
}

// pick prefers an installed toolkit; else the newest whose own driver the
// machine has (full feature set, PTX JIT works); else the newest.
func (r *resolver) pick(ok []*evaluation) *evaluation {
	for _, e := range ok {
		if e.cand.Installed {
			return e
		}
	}
	for _, e := range ok {
		if !e.minorCompat {
			return e
		}
	}
	if len(ok) > 0 {
		return ok[0]
	}
	return nil
}

func (r *resolver) why(e *evaluation, installed bool) []string {
	var out []string
	switch {
	case e.cand.Installed:
		out = append(out, r.m.Text("reason.pick-installed", "version", e.cand.Version))
	case installed:
		out = append(out, r.m.Text("reason.pick-instead", "version", e.cand.Version))
	default:
		out = append(out, r.m.Text("reason.pick-newest", "version", e.cand.Version))
	}
	return append(out, e.cand.Reasons...)
}

func (r *resolver) lookups() []GPULookup {
	var out []GPULookup
	for _, g := range r.q.GPUs {
		out = append(out, r.m.lookup(g))
	}
	return out
}

// lookup resolves one GPUQuery: a CC given by the caller (NVML) wins.
func (m *Matrix) lookup(g GPUQuery) GPULookup {
	if g.CC != "" {
		l := GPULookup{Query: g.Name}
		if l.Query == "" {
			l.Query = g.CC
		}
		if g.Name != "" {
			l = m.LookupGPU(g.Name)
		}
		_, cc, ok := parseCC(g.CC)
		if !ok {
			return GPULookup{Query: l.Query}
		}
		if l.Found && l.ComputeCapability != cc {
			l.Uncertain = true
		}
		l.Found, l.ComputeCapability, l.Match = true, cc, MatchCC
		if l.Name == "" {
			l.Name = g.Name
		}
		if l.Arch == "" || l.Uncertain {
			l.Arch, l.Source = m.archOf(cc), "given compute capability"
		}
		return l
	}
	return m.LookupGPU(g.Name)
}

// archOf names the architecture of a CC from the GPU table.
func (m *Matrix) archOf(cc string) string {
	for _, g := range m.GPUs {
		if g.CC == cc {
			return g.Arch
		}
	}
	return ""
}

func (r *resolver) parseQuery() {
	q := r.q
	r.os = strings.ToLower(strings.TrimSpace(q.OS))
	switch r.os {
	case "", "windows", "linux":
	case "win", "win32", "win64":
		r.os = "windows"
	case "wsl", "wsl2":
		// WSL builds with Linux compilers against the Windows driver,
		// which reports Windows version numbers (Driver).
		r.os, r.driverOS = "linux", "windows"
		r.reasons = append(r.reasons, r.m.Text("reason.wsl"))
	default:
		r.reasons = append(r.reasons, r.m.Text("reason.os-unknown", "os", q.OS))
		r.os = "linux"
	}
	if r.os == "" {
		switch {
		case q.MSVC != "":
			r.os = "windows"
		case q.GCC != "" || q.Clang != "":
			r.os = "linux"
		}
	}
	if r.driverOS == "" {
		r.driverOS = r.os
	}
	for _, g := range q.GPUs {
		l := r.m.lookup(g)
		label := g.Name
		if label == "" {
			label = "GPU"
		}
		if !l.Found {
			fix := r.m.Text("gpu-unknown.fix")
			msg := r.m.Text("gpu-unknown.message", "gpu", label)
			if g.CC != "" {
				msg = r.m.Text("gpu-unknown.message-cc", "cc", g.CC)
			}
			if len(l.Closest) > 0 {
				msg = r.m.Text("gpu-unknown.with-closest", "message", msg, "closest", strings.Join(l.Closest, ", "))
			}
			r.blockers = append(r.blockers, Blocker{ID: BlockGPUUnknown, Message: msg, Fix: fix})
			continue
		}
		sm, _, _ := parseCC(l.ComputeCapability)
		label = r.m.Text("label.gpu", "name", l.Name, "cc", l.ComputeCapability)
		if l.Name == "" {
			label = r.m.Text("label.gpu-cc", "cc", l.ComputeCapability)
		}
		r.gpus = append(r.gpus, gpuTarget{label: label, sm: sm})
		if l.Match == MatchShortForm {
			r.reasons = append(r.reasons, r.m.Text("reason.short-form", "query", g.Name, "name", l.Name, "cc", l.ComputeCapability))
		}
		if g.CC != "" && g.Name != "" && l.Uncertain {
			if t := r.m.LookupGPU(g.Name); t.Found && t.ComputeCapability != l.ComputeCapability {
				r.reasons = append(r.reasons, r.m.Text("reason.driver-cc-wins", "name", g.Name, "cc", l.ComputeCapability, "table", t.ComputeCapability))
			}
		}
	}
	if q.Driver != "" {
		if v, ok := parseVersion(q.Driver); ok && v.Major() >= 100 {
			r.driver = v
		} else {
			r.blockers = append(r.blockers, Blocker{ID: BlockInvalidQueryArg, Message: r.m.Text("invalid-input.driver.message", "value", q.Driver), Fix: r.m.Text("invalid-input.driver.fix")})
		}
	}
	if q.MSVC != "" {
		if n, ok := mscVer(toolsetToCL(q.MSVC)); ok {
			r.msc = n
		} else {
			r.blockers = append(r.blockers, Blocker{ID: BlockInvalidQueryArg, Message: r.m.Text("invalid-input.msvc.message", "value", q.MSVC), Fix: r.m.Text("invalid-input.msvc.fix")})
		}
	}
	for _, a := range q.AvailableMSVC {
		if n, ok := mscVer(toolsetToCL(a)); ok && n != r.msc {
			r.altMSVC = append(r.altMSVC, n)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(r.altMSVC)))
	r.gcc = r.compilerMajor("gcc", q.GCC)
	r.clang = r.compilerMajor("clang", q.Clang)
	if q.EngineMinCUDA != "" {
		if v, ok := parseVersion(q.EngineMinCUDA); ok {
			r.engine = v
		} else {
			r.blockers = append(r.blockers, Blocker{ID: BlockInvalidQueryArg, Message: r.m.Text("invalid-input.engine.message", "value", q.EngineMinCUDA), Fix: r.m.Text("invalid-input.engine.fix")})
		}
	}
	if r.os == "windows" && (r.gcc > 0 || r.clang > 0) {
		r.reasons = append(r.reasons, r.m.Text("reason.windows-ignores-gcc"))
		r.gcc, r.clang = 0, 0
	}
	if r.os == "linux" && r.msc > 0 {
		r.reasons = append(r.reasons, r.m.Text("reason.linux-ignores-msvc"))
		r.msc, r.altMSVC = 0, nil
	}
}

func (r *resolver) compilerMajor(kind, s string) int {
	if s == "" {
		return 0
	}
	v, ok := parseVersion(s)
	if !ok || v.Major() < 1 || v.Major() > 99 {
		r.blockers = append(r.blockers, Blocker{ID: BlockInvalidQueryArg, Message: r.m.Text("invalid-input.compiler.message", "kind", kind, "value", s), Fix: r.m.Text("invalid-input.compiler.fix", "kind", kind)})
		return 0
	}
	return v.Major()
}

// target is the sm_ number of a GPU for toolkit t: Thor is sm_101 before
// CUDA 13 and sm_110 from 13.0 (renumbered, RN130_SM110).
func target(t *ToolkitFacts, sm int) int {
	switch {
	case sm == 110 && t.Major() < 13:
		return 101
	case sm == 101 && t.Major() >= 13:
		return 110
	}
	return sm
}

func (r *resolver) architectures(t *ToolkitFacts) string {
	set := map[int]bool{}
	for _, g := range r.gpus {
		set[target(t, g.sm)] = true
	}
	var sms []int
	for s := range set {
		sms = append(sms, s)
	}
	sort.Ints(sms)
	parts := make([]string, len(sms))
	for i, s := range sms {
		parts[i] = strconv.Itoa(s) + "-real"
	}
	return strings.Join(parts, ";")
}
