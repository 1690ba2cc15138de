package matrix

import "fmt"

// Toolkit returns the facts for a CUDA version given as a release
// ("12.4.1" = 12.4 Update 1), a minor ("12.4") or an nvcc build number
// ("12.4.131", what `nvcc --version` prints). A minor or a build number maps
// to the minor's newest release with a known driver: nvcc's build number
// does not say which update it is, and the newest update's driver is the
// safe (highest) requirement.
func (m *Matrix) Toolkit(s string) (*ToolkitFacts, bool) {
	v, ok := parseVersion(s)
	if !ok || v.Len() < 2 {
		return nil, false
	}
	if v.Len() == 3 {
		for i := range m.Toolkits {
			if m.Toolkits[i].v.Compare(v) == 0 {
				return &m.Toolkits[i], true
			}
		}
	}
	var best, any *ToolkitFacts
	for i := range m.Toolkits {
		t := &m.Toolkits[i]
		if t.v.Major() != v.Major() || t.v.Minor() != v.Minor() {
			continue
		}
		any = t
		if t.DriverLinux != "" {
			best = t
		}
	}
	if best == nil {
		best = any
	}
	return best, best != nil
}

// minors returns, per CUDA minor, the release that represents it in
// Resolve (newest update with a known driver), oldest first, and the minors
// left out because the sources give no driver for them.
func (m *Matrix) minors() (reps []*ToolkitFacts, skipped []string) {
	seen := map[string]bool{}
	for i := len(m.Toolkits) - 1; i >= 0; i-- {
		t := &m.Toolkits[i]
		mv := t.MinorVersion()
		if seen[mv] {
			continue
		}
		r, _ := m.Toolkit(mv)
		seen[mv] = true
		if r.DriverLinux == "" {
			skipped = append([]string{mv}, skipped...)
			continue
		}
		reps = append([]*ToolkitFacts{r}, reps...)
	}
	return reps, skipped
}

// GCCMaxMajor is the newest gcc major nvcc of this toolkit accepts, and
// whether that value is inferred rather than sourced (from the documented
// maximum, or from equal neighbours within the same CUDA major when the
// release's own value is missing).
func (m *Matrix) GCCMaxMajor(t *ToolkitFacts) (int, bool, bool) {
	return m.compilerMax(t, func(t *ToolkitFacts) (*int, *string) { return t.GCCMaxEnforced, t.GCCMax })
}

// ClangMaxMajor is GCCMaxMajor for clang.
func (m *Matrix) ClangMaxMajor(t *ToolkitFacts) (int, bool, bool) {
	return m.compilerMax(t, func(t *ToolkitFacts) (*int, *string) { return t.ClangMaxEnforced, t.ClangMax })
}

func ownMax(enf *int, doc *string) (int, bool) {
	if enf != nil {
		return *enf, true
	}
	if doc != nil {
		if v, ok := parseVersion(*doc); ok {
			return v.Major(), true
		}
	}
	return 0, false
}

func (m *Matrix) compilerMax(t *ToolkitFacts, get func(*ToolkitFacts) (*int, *string)) (max int, inferred, ok bool) {
	if n, ok := ownMax(get(t)); ok {
		return n, false, true
	}
	idx := -1
	for i := range m.Toolkits {
		if &m.Toolkits[i] == t {
			idx = i
		}
	}
	if idx < 0 {
		return 0, false, false
	}
	before, after := -1, -1
	for i := idx - 1; i >= 0 && m.Toolkits[i].Major() == t.Major(); i-- {
		if n, ok := ownMax(get(&m.Toolkits[i])); ok {
			before = n
			break
		}
	}
	for i := idx + 1; i < len(m.Toolkits) && m.Toolkits[i].Major() == t.Major(); i++ {
		if n, ok := ownMax(get(&m.Toolkits[i])); ok {
			after = n
			break
		}
	}
	if before >= 0 && before == after {
		return before, true, true
	}
	return 0, false, false
}

// driverFor is the toolkit's own (Table 3) driver for the OS. For 13.x on
// Windows Table 3 says N/A; the Linux branch is the requirement then.
func (t *ToolkitFacts) driverFor(os string) (v version, raw string, branchOnly bool, ok bool) {
	d := t.DriverLinux
	if os == "windows" {
		d = t.DriverWindows
		if d == "" && t.DriverLinux != "" {
			lv, _ := parseVersion(t.DriverLinux)
			b := branch(lv)
			return fromParts(b), fmt.Sprintf("R%d", b), true, true
		}
	}
	if d == "" {
		return version{}, "", false, false
	}
	v, ok = parseVersion(d)
	return v, d, false, ok
}

func (t *ToolkitFacts) String() string { return fmt.Sprintf("CUDA %s (%s)", t.Version, t.Label) }

// Family is the minor-version-compatibility rule of a CUDA major, nil when
// the data has none.
func (m *Matrix) Family(major int) *Family {
	for i := range m.Families {
		if m.Families[i].Major == major {
			return &m.Families[i]
		}
	}
	return nil
}

// TargetRange is the oldest and newest CUDA minor ("11.8", "12.9") whose
// nvcc builds real SASS for compute capability cc, over the releases
// Resolve weighs (Thor's sm_101 → sm_110 renumbering included).
func (m *Matrix) TargetRange(cc string) (first, last string, ok bool) {
	sm, _, valid := parseCC(cc)
	if !valid {
		return "", "", false
	}
	reps, _ := m.minors()
	for _, t := range reps {
		if t.HasSM(target(t, sm)) {
			if first == "" {
				first = t.MinorVersion()
			}
			last = t.MinorVersion()
		}
	}
	return first, last, first != ""
}
