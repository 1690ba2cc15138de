package matrix

import "fmt"

// The checks Resolve runs for each candidate release:
// GPU targets, driver, host compiler, engine minimum.

func (r *resolver) evaluate(t *ToolkitFacts) *evaluation {
	e := &evaluation{t: t, cand: Candidate{Version: t.Version}}
	r.checkGPUs(e)
	r.checkDriver(e)
	r.checkMSVC(e)
	r.checkGCC(e)
	r.checkClang(e)
	if !r.engine.IsZero() && t.v.Compare(r.engine) < 0 {
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
			if r.m.ArchRewrite.Applies(sm) {
				// pitfall 8: FP4 needs the arch-specific 12Xa target.
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
			fix := r.m.Text("gpu-arch-too-new.fix-none", "sm", sm)
			if first := r.oldestWith(func(c *ToolkitFacts) bool { return c.HasSM(target(c, g.sm)) }); first != nil {
				fix = r.m.Text("gpu-arch-too-new.fix", "first", first.MinorVersion())
			}
			e.fails = append(e.fails, Blocker{ID: BlockGPUTooNew,
				Message: r.m.Text("gpu-arch-too-new.message", "gpu", g.label, "minor", t.MinorVersion(), "sm", hi),
				Fix:     fix})
		case sm < lo:
			last := r.newestWith(func(c *ToolkitFacts) bool { return c.HasSM(target(c, g.sm)) })
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

// firstWith names the oldest release Resolve weighs for which f holds.
func (r *resolver) firstWith(f func(*ToolkitFacts) bool) string {
	if t := r.oldestWith(f); t != nil {
		return t.MinorVersion()
	}
	return r.m.Text("fix.none-in-matrix")
}

func (r *resolver) oldestWith(f func(*ToolkitFacts) bool) *ToolkitFacts {
	for _, t := range r.reps {
		if f(t) {
			return t
		}
	}
	return nil
}

func (r *resolver) newestWith(f func(*ToolkitFacts) bool) *ToolkitFacts {
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
	case r.driverOS == "windows", r.driverOS == "" && w.Compare(l) > 0:
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
	r.driver = version{}
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
		if lok && wok && w.Compare(l) > 0 {
			return w, wr, wb, true
		}
		return l, lr, lb, lok
	}
	return t.driverFor(r.driverOS)
}

func (r *resolver) checkDriver(e *evaluation) {
	if r.driver.IsZero() {
		return
	}
	t := e.t
	d := r.driver
	f := r.m.Family(t.Major())
	if f == nil {
		return
	}
	fl, fls := r.floor(f)
	if d.Compare(fl) < 0 {
		own, ownRaw, branchOnly, ok := r.ownDriver(t)
		ownPart, altPart := "", ""
		if ok && own.Compare(fl) > 0 {
			key := "driver-below-family-floor.fix-own"
			if branchOnly {
				key = "driver-below-family-floor.fix-own-branch"
			}
			ownPart = r.m.Text(key, "own", ownRaw, "minor", t.MinorVersion())
		}
		alt := 0
		for _, o := range r.m.Families {
			if o.Major < f.Major && o.Major > alt && d.Compare(floorOf(r.floor(&o))) >= 0 && r.familyWorks(o.Major) {
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
	case branchOnly && d.Major() >= own.Major() || !branchOnly && d.Compare(own) >= 0:
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
func (m *Matrix) familyCertainFor(d version, f *Family) bool { return d.Major() >= f.BranchFloor+5 }

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
		stlFails = t.v.Truncate(2).Compare(stlNeed) < 0
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
		if f := r.oldestWith(func(c *ToolkitFacts) bool {
			return c.MSCVerMaxExclusive != nil && msc < *c.MSCVerMaxExclusive && msc >= *c.MSCVerMin
		}); f != nil {
			need = f.v.Truncate(2)
		}
		if stl != nil && !need.IsZero() && stlNeed.Compare(need) > 0 {
			need = stlNeed
		}
		old := r.newestRealMSVC(*t.MSCVerMaxExclusive)
		toolset := r.m.Text("msvc-too-new.toolset", "cl", clVersion(old), "toolset", fmt.Sprintf("14.%02d", old%100))
		if !need.IsZero() {
			b.Fix = r.m.Text("msvc-too-new.fix", "need", need, "toolset", toolset)
		} else {
			b.Fix = r.m.Text("msvc-too-new.fix-none", "toolset", toolset)
		}
		if stlFails {
			b.Message = r.m.Text("msvc-too-new.stl-too", "message", b.Message, "need", stl.RequiresCUDA)
		} else {
			b.LastResortFix = r.m.Text("msvc-too-new.last-resort")
			if c := r.m.CompilerCrash; c.MSCVerMin > 0 && msc >= c.MSCVerMin && t.below(c.CUDABelow) {
				// pitfall 1: two reports of cudafe++ crashing with VS 2026 and 13.0/13.1.
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
	if cl := ToolsetCL(s); cl != "" {
		return cl
	}
	return s
}

// floorOf drops floor's display string.
func floorOf(v version, _ string) version { return v }

// newestRealMSVC is the newest _MSC_VER below limit that a Visual Studio
// release in rules.json ships (19.44 for a limit of 1950, not 19.49), so
// the toolset llamactl suggests exists.
func (r *resolver) newestRealMSVC(limit int) int {
	best := limit - 1
	found := 0
	for _, v := range r.m.VisualStudio {
		if v.MSCVerMin < limit {
			found = max(found, min(v.MSCVerMax, limit-1))
		}
	}
	if found > 0 {
		best = found
	}
	return best
}
