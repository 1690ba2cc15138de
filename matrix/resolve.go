package matrix

import (
	"fmt"
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
		return ok[i].t.v.cmp(ok[j].t.v) > 0
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
			if closest == nil || len(e.fails) < len(closest.fails) || len(e.fails) == len(closest.fails) && e.t.v.cmp(closest.t.v) > 0 {
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
	return res
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
		// which reports Windows version numbers (cuda-matrix.md §1 Driver).
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
		if v, ok := parseVersion(q.Driver); ok && v.major() >= 100 {
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
	if !ok || v.major() < 1 || v.major() > 99 {
		r.blockers = append(r.blockers, Blocker{ID: BlockInvalidQueryArg, Message: r.m.Text("invalid-input.compiler.message", "kind", kind, "value", s), Fix: r.m.Text("invalid-input.compiler.fix", "kind", kind)})
		return 0
	}
	return v.major()
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

func (r *resolver) evaluate(t *ToolkitFacts) *evaluation {
	e := &evaluation{t: t, cand: Candidate{Version: t.Version}}
	r.checkGPUs(e)
	r.checkDriver(e)
	r.checkMSVC(e)
	r.checkGCC(e)
	r.checkClang(e)
	if r.engine != nil && t.v.cmp(r.engine) < 0 {
		e.fails = append(e.fails, Blocker{ID: BlockEngineMinCUDA,
			Message: r.m.Text("engine-needs-newer-cuda.message", "need", r.engine, "minor", t.MinorVersion()),
			Fix:     r.m.Text("engine-needs-newer-cuda.fix", "need", r.engine)})
	}
	return e
}

func (r *resolver) add(e *evaluation, s string) { e.cand.Reasons = append(e.cand.Reasons, s) }

func (r *resolver) checkGPUs(e *evaluation) {
	t := e.t
	if len(t.SM) == 0 {
		return
	}
	lo, hi := t.SM[0], t.SM[len(t.SM)-1]
	for _, g := range r.gpus {
		sm := target(t, g.sm)
		if t.HasSM(sm) {
			r.add(e, r.m.Text("reason.gpu-sass", "gpu", g.label, "minor", t.MinorVersion(), "sm", sm))
			if sm >= 120 && sm < 130 {
				// cuda-matrix.md pitfall 8: FP4 needs the arch-specific 12Xa target.
				r.add(e, r.m.Text("reason.blackwell-a", "sm", sm))
			}
			for _, d := range t.DeprecatedSM {
				if d == sm {
					r.add(e, r.m.Text("reason.sm-deprecated", "minor", t.MinorVersion(), "sm", sm))
				}
			}
			if t.uncertainField("sm_list") {
				r.add(e, r.m.Text("reason.sm-list-unverified", "minor", t.MinorVersion()))
			}
			continue
		}
		switch {
		case sm > hi:
			first := r.firstWith(func(c *ToolkitFacts) bool { return c.HasSM(target(c, g.sm)) })
			e.fails = append(e.fails, Blocker{ID: BlockGPUTooNew,
				Message: r.m.Text("gpu-arch-too-new.message", "gpu", g.label, "minor", t.MinorVersion(), "sm", hi),
				Fix:     r.m.Text("gpu-arch-too-new.fix", "first", first)})
		case sm < lo:
			last := r.lastWith(func(c *ToolkitFacts) bool { return c.HasSM(target(c, g.sm)) })
			fix := r.m.Text("gpu-arch-too-old.fix-none")
			if last != nil {
				fix = r.m.Text("gpu-arch-too-old.fix", "major", last.Major(), "last", last.MinorVersion(), "sm", g.sm)
			}
			e.fails = append(e.fails, Blocker{ID: BlockGPUTooOld,
				Message: r.m.Text("gpu-arch-too-old.message", "gpu", g.label, "minor", t.MinorVersion(), "sm", lo),
				Fix:     fix})
		default:
			e.fails = append(e.fails, Blocker{ID: BlockGPUNotTarget,
				Message: r.m.Text("gpu-arch-not-a-target.message", "gpu", g.label, "sm", sm, "minor", t.MinorVersion()),
				Fix:     r.m.Text("gpu-arch-not-a-target.fix", "first", r.firstWith(func(c *ToolkitFacts) bool { return c.HasSM(target(c, g.sm)) }))})
		}
	}
}

func (r *resolver) firstWith(f func(*ToolkitFacts) bool) string {
	for _, t := range r.reps {
		if f(t) {
			return t.MinorVersion()
		}
	}
	return r.m.Text("fix.none-in-matrix")
}

func (r *resolver) lastWith(f func(*ToolkitFacts) bool) *ToolkitFacts {
	for i := len(r.reps) - 1; i >= 0; i-- {
		if f(r.reps[i]) {
			return r.reps[i]
		}
	}
	return nil
}

// floor is a family's minimum driver for the OS; with no OS given, the
// stricter of Linux and Windows.
func (r *resolver) floor(f *Family) (version, string) {
	l, _ := parseVersion(f.DriverLinux)
	w, _ := parseVersion(f.DriverWindows)
	switch {
	case r.driverOS == "windows", r.driverOS == "" && w.cmp(l) > 0:
		return w, f.DriverWindows
	}
	return l, f.DriverLinux
}

// familyWorks: some release of that CUDA major fits everything but the driver.
func (r *resolver) familyWorks(major int) bool {
	if v, ok := r.familyOK[major]; ok {
		return v
	}
	if r.familyOK == nil {
		r.familyOK = map[int]bool{}
	}
	v := r.familyWorksUncached(major)
	r.familyOK[major] = v
	return v
}

func (r *resolver) familyWorksUncached(major int) bool {
	saved := r.driver
	r.driver = nil
	defer func() { r.driver = saved }()
	for _, t := range r.reps {
		if t.Major() == major && len(r.evaluate(t).fails) == 0 {
			return true
		}
	}
	return false
}

func (r *resolver) ownDriver(t *ToolkitFacts) (version, string, bool, bool) {
	if r.driverOS == "" {
		l, lr, lb, lok := t.driverFor("linux")
		w, wr, wb, wok := t.driverFor("windows")
		if lok && wok && w.cmp(l) > 0 {
			return w, wr, wb, true
		}
		return l, lr, lb, lok
	}
	return t.driverFor(r.driverOS)
}

func (r *resolver) checkDriver(e *evaluation) {
	if r.driver == nil {
		return
	}
	t := e.t
	d := r.driver
	f := r.m.Family(t.Major())
	if f == nil {
		return
	}
	fl, fls := r.floor(f)
	if d.cmp(fl) < 0 {
		own, ownRaw, branchOnly, ok := r.ownDriver(t)
		ownPart, altPart := "", ""
		if ok && own.cmp(fl) > 0 {
			key := "driver-below-family-floor.fix-own"
			if branchOnly {
				key = "driver-below-family-floor.fix-own-branch"
			}
			ownPart = r.m.Text(key, "own", ownRaw, "minor", t.MinorVersion())
		}
		alt := 0
		for _, o := range r.m.Families {
			if o.Major < f.Major && o.Major > alt && d.cmp(first(r.floor(&o))) >= 0 && r.familyWorks(o.Major) {
				alt = o.Major
			}
		}
		if alt > 0 {
			altPart = r.m.Text("driver-below-family-floor.fix-alt", "major", alt)
		}
		e.fails = append(e.fails, Blocker{ID: BlockDriverFamily,
			Message: r.m.Text("driver-below-family-floor.message", "driver", r.q.Driver, "branch", branch(d), "major", t.Major(), "floor", fls),
			Fix:     r.m.Text("driver-below-family-floor.fix", "floor", fls, "own", ownPart, "alt", altPart)})
		return
	}
	own, ownRaw, branchOnly, ok := r.ownDriver(t)
	switch {
	case !ok:
		r.add(e, r.m.Text("reason.driver-unverified", "minor", t.MinorVersion(), "driver", r.q.Driver, "major", t.Major(), "floor", fls))
	case branchOnly && d.major() >= own.major() || !branchOnly && d.cmp(own) >= 0:
		r.add(e, r.m.Text("reason.driver-full", "driver", r.q.Driver, "minor", t.MinorVersion(), "own", ownRaw))
	default:
		e.minorCompat = true
		r.add(e, r.m.Text("reason.driver-minor-compat", "driver", r.q.Driver, "minor", t.MinorVersion(), "own", ownRaw))
	}
	if f.Uncertain && !r.m.familyCertainFor(d, f) {
		r.add(e, r.m.Text("reason.family-uncertain", "why", f.UncertainWhy))
	}
}

// familyCertainFor: the point floor is uncertain, the branch floor is not;
// a driver above the point floor's branch by a full branch is certain.
func (m *Matrix) familyCertainFor(d version, f *Family) bool { return d.major() >= f.BranchFloor+5 }

func (r *resolver) vsName(msc int) string {
	for _, v := range r.m.VisualStudio {
		if msc >= v.MSCVerMin && msc <= v.MSCVerMax {
			return v.Name
		}
	}
	return ""
}

func (r *resolver) msvcLabel(msc int) string {
	if n := r.vsName(msc); n != "" {
		return r.m.Text("label.msvc-vs", "cl", clVersion(msc), "vs", n)
	}
	return r.m.Text("label.msvc", "cl", clVersion(msc))
}

func (r *resolver) stlRule(msc int) *STLRule {
	for i := range r.m.STL {
		s := &r.m.STL[i]
		if msc >= s.MSCVerMin && msc <= s.MSCVerMax {
			return s
		}
	}
	return nil
}

// checkMSVC weighs the default cl.exe; when it does not fit, an installed
// older toolset that does (Query.AvailableMSVC) becomes the -vcvars_ver choice.
func (r *resolver) checkMSVC(e *evaluation) {
	if r.msc == 0 {
		return
	}
	fails, reason := r.msvcFails(e.t, r.msc)
	if len(fails) == 0 {
		r.add(e, reason)
		return
	}
	for _, alt := range r.altMSVC {
		if f, _ := r.msvcFails(e.t, alt); len(f) == 0 {
			e.toolset = fmt.Sprintf("14.%02d", alt%100)
			r.add(e, r.m.Text("reason.msvc-alt-toolset", "msvc", r.msvcLabel(r.msc), "minor", e.t.MinorVersion(), "alt", r.msvcLabel(alt), "toolset", e.toolset))
			return
		}
	}
	e.fails = append(e.fails, fails...)
}

func (r *resolver) msvcFails(t *ToolkitFacts, msc int) ([]Blocker, string) {
	stl := r.stlRule(msc)
	stlFails := false
	var stlNeed version
	if stl != nil {
		stlNeed, _ = parseVersion(stl.RequiresCUDA)
		stlFails = version{t.v.major(), t.v.minor()}.cmp(stlNeed) < 0
	}
	label := r.msvcLabel(msc)
	reason := ""
	switch {
	case t.MSCVerMin == nil || t.MSCVerMaxExclusive == nil:
		reason = r.m.Text("reason.msvc-unverified", "minor", t.MinorVersion())
	case msc >= *t.MSCVerMaxExclusive:
		b := Blocker{ID: BlockMSVCTooNew, Message: r.m.Text("msvc-too-new.message", "msvc", label, "minor", t.MinorVersion(),
			"min", clVersion(*t.MSCVerMin), "max", clVersion(*t.MSCVerMaxExclusive-1))}
		var need version
		if f := r.lastWithFirst(func(c *ToolkitFacts) bool {
			return c.MSCVerMaxExclusive != nil && msc < *c.MSCVerMaxExclusive && msc >= *c.MSCVerMin
		}); f != nil {
			need = version{f.v.major(), f.v.minor()}
		}
		if stl != nil && need != nil && stlNeed.cmp(need) > 0 {
			need = stlNeed
		}
		old := *t.MSCVerMaxExclusive - 1
		toolset := r.m.Text("msvc-too-new.toolset", "cl", clVersion(old), "toolset", fmt.Sprintf("14.%02d", old%100))
		if need != nil {
			b.Fix = r.m.Text("msvc-too-new.fix", "need", need, "toolset", toolset)
		} else {
			b.Fix = r.m.Text("msvc-too-new.fix-none", "toolset", toolset)
		}
		if stlFails {
			b.Message = r.m.Text("msvc-too-new.stl-too", "message", b.Message, "need", stl.RequiresCUDA)
		} else {
			b.LastResortFix = r.m.Text("msvc-too-new.last-resort")
			if msc >= 1950 {
				// cuda-matrix.md pitfall 1: two reports of cudafe++ crashing with VS 2026 and 13.0/13.1.
				b.LastResortFix += r.m.Text("msvc-too-new.last-resort-vs2026")
			}
		}
		return []Blocker{b}, ""
	case msc < *t.MSCVerMin:
		return []Blocker{{ID: BlockMSVCTooOld,
			Message: r.m.Text("msvc-too-old.message", "msvc", label, "minor", t.MinorVersion(), "min", clVersion(*t.MSCVerMin), "max", clVersion(*t.MSCVerMaxExclusive-1)),
			Fix:     r.m.Text("msvc-too-old.fix", "min", clVersion(*t.MSCVerMin))}}, ""
	default:
		reason = r.m.Text("reason.msvc-accepted", "msvc", label, "minor", t.MinorVersion())
	}
	if stlFails {
		return []Blocker{{ID: BlockMSVCSTL,
			Message:       r.m.Text("msvc-stl-needs-newer-cuda.message", "msvc", label, "need", stl.RequiresCUDA),
			Fix:           r.m.Text("msvc-stl-needs-newer-cuda.fix", "need", stl.RequiresCUDA),
			LastResortFix: r.m.Text("msvc-stl-needs-newer-cuda.last-resort")}}, ""
	}
	return nil, reason
}

// lastWithFirst is the oldest representative release for which f holds.
func (r *resolver) lastWithFirst(f func(*ToolkitFacts) bool) *ToolkitFacts {
	for _, t := range r.reps {
		if f(t) {
			return t
		}
	}
	return nil
}

func first(v version, _ string) version { return v }

func (r *resolver) checkGCC(e *evaluation) {
	if r.gcc == 0 {
		return
	}
	max, inferred, ok := r.m.GCCMaxMajor(e.t)
	r.checkHost(e, "gcc", "g++", r.gcc, max, inferred, ok, r.q.AvailableGCC, BlockGCCTooNew,
		func(c *ToolkitFacts) bool { n, _, ok := r.m.GCCMaxMajor(c); return ok && n >= r.gcc })
}

func (r *resolver) checkClang(e *evaluation) {
	if r.clang == 0 {
		return
	}
	max, inferred, ok := r.m.ClangMaxMajor(e.t)
	r.checkHost(e, "clang", "clang++", r.clang, max, inferred, ok, nil, BlockClangTooNew,
		func(c *ToolkitFacts) bool { n, _, ok := r.m.ClangMaxMajor(c); return ok && n >= r.clang })
}

func (r *resolver) checkHost(e *evaluation, kind, cxx string, have, max int, inferred, ok bool, avail []int, id string, accepts func(*ToolkitFacts) bool) {
	t := e.t
	if !ok {
		r.add(e, r.m.Text("reason.compiler-unverified", "kind", kind, "minor", t.MinorVersion()))
		return
	}
	note := ""
	if inferred {
		note = r.m.Text("note.inferred")
	}
	if have <= max {
		r.add(e, r.m.Text("reason.compiler-accepted", "kind", kind, "have", have, "minor", t.MinorVersion(), "max", max, "note", note))
		return
	}
	older := 0
	for _, a := range avail {
		if a <= max && a > older {
			older = a
		}
	}
	if older > 0 {
		e.host = fmt.Sprintf("%s-%d", cxx, older)
		r.add(e, r.m.Text("reason.compiler-alt", "kind", kind, "have", have, "minor", t.MinorVersion(), "max", max, "note", note, "alt", e.host))
		return
	}
	e.fails = append(e.fails, Blocker{ID: id,
		Message:       r.m.Text(id+".message", "have", have, "minor", t.MinorVersion(), "max", max, "note", note),
		Fix:           r.m.Text(id+".fix", "max", max, "first", r.firstWith(accepts)),
		LastResortFix: r.m.Text("host.last-resort")})
}

// toolsetToCL turns an MSVC toolset directory version ("14.39.33519", as
// under VC\Tools\MSVC) into the cl.exe version ("19.39"); cl versions pass.
func toolsetToCL(s string) string {
	v, ok := parseVersion(s)
	if ok && len(v) >= 2 && v[0] == 14 && v[1] >= 10 {
		return fmt.Sprintf("19.%02d", v[1])
	}
	return s
}
