package matrix

import (
	"fmt"
	"strconv"
)

// ToolkitReport is a toolkit's facts in the shape `matrix cuda --json`
// prints (schema 1), with the cross-toolkit rules applied.
type ToolkitReport struct {
	Schema  int    `json:"schema"`
	Query   string `json:"query"`
	Version string `json:"version"`
	Label   string `json:"label"`
	Minor   string `json:"minor"`
	// Driver is NVIDIA Table 3's driver for this release: the one that gives
	// the full feature set and PTX JIT.
	Driver DriverPair `json:"driver"`
	// FamilyFloor is the minimum driver for minor-version compatibility.
	FamilyFloor  FamilyFloor `json:"family_floor"`
	SM           []string    `json:"sm"` // "sm_89"
	ArchSpecific []string    `json:"arch_specific,omitempty"`
	DeprecatedSM []string    `json:"deprecated_sm,omitempty"`
	GCC          *HostLimit  `json:"gcc,omitempty"`
	Clang        *HostLimit  `json:"clang,omitempty"`
	MSVC         *MSVCRange  `json:"msvc,omitempty"`
	// STL lists, per MSVC STL release, whether its STL1002 check accepts this toolkit.
	STL              []STLCheck `json:"msvc_stl"`
	Uncertain        bool       `json:"uncertain"`
	UncertainFields  []string   `json:"uncertain_fields,omitempty"`
	UncertainReasons []string   `json:"uncertain_reasons,omitempty"`
	Source           string     `json:"source"`
	Sources          []string   `json:"sources"`
	Notes            string     `json:"notes,omitempty"`
	DataVersion      string     `json:"data_version"`
}

type DriverPair struct {
	Linux   string `json:"linux,omitempty"`
	Windows string `json:"windows,omitempty"` // empty: Table 3 says N/A (13.x)
}

type FamilyFloor struct {
	Major     int    `json:"major"`
	Linux     string `json:"linux"`
	Windows   string `json:"windows"`
	Uncertain bool   `json:"uncertain,omitempty"`
	Source    string `json:"source"`
}

type HostLimit struct {
	MaxMajor   int    `json:"max_major"`            // newest major host_config.h accepts
	Documented string `json:"documented,omitempty"` // NVIDIA's documented max ("13.2")
	Inferred   bool   `json:"inferred,omitempty"`
}

type MSVCRange struct {
	MSCVerMin          int    `json:"msc_ver_min"`
	MSCVerMaxExclusive int    `json:"msc_ver_max_exclusive"`
	CLMin              string `json:"cl_min"` // "19.10"
	CLMax              string `json:"cl_max"` // "19.49"
}

type STLCheck struct {
	Release      string `json:"release"`
	RequiresCUDA string `json:"requires_cuda"`
	Accepts      bool   `json:"accepts"`
	Uncertain    bool   `json:"uncertain,omitempty"`
}

// Report describes toolkit t.
func (m *Matrix) Report(query string, t *ToolkitFacts) ToolkitReport {
	r := ToolkitReport{Schema: 1, Query: query, Version: t.Version, Label: t.Label, Minor: t.MinorVersion(),
		Driver: DriverPair{Linux: t.DriverLinux, Windows: t.DriverWindows}, ArchSpecific: t.ArchSpecific,
		Uncertain: t.Uncertain, UncertainFields: t.UncertainFields, UncertainReasons: t.UncertainReasons,
		Source: t.Source, Notes: t.Notes, DataVersion: m.DataVersion}
	for _, f := range m.Families {
		if f.Major == t.Major() {
			r.FamilyFloor = FamilyFloor{Major: f.Major, Linux: f.DriverLinux, Windows: f.DriverWindows, Uncertain: f.Uncertain, Source: f.Source}
		}
	}
	for _, s := range t.SM {
		r.SM = append(r.SM, "sm_"+strconv.Itoa(s))
	}
	for _, s := range t.DeprecatedSM {
		r.DeprecatedSM = append(r.DeprecatedSM, "sm_"+strconv.Itoa(s))
	}
	if n, inf, ok := m.GCCMaxMajor(t); ok {
		r.GCC = &HostLimit{MaxMajor: n, Inferred: inf}
		if t.GCCMax != nil {
			r.GCC.Documented = *t.GCCMax
		}
	}
	if n, inf, ok := m.ClangMaxMajor(t); ok {
		r.Clang = &HostLimit{MaxMajor: n, Inferred: inf}
		if t.ClangMax != nil {
			r.Clang.Documented = *t.ClangMax
		}
	}
	if t.MSCVerMin != nil && t.MSCVerMaxExclusive != nil {
		r.MSVC = &MSVCRange{MSCVerMin: *t.MSCVerMin, MSCVerMaxExclusive: *t.MSCVerMaxExclusive,
			CLMin: clVersion(*t.MSCVerMin), CLMax: clVersion(*t.MSCVerMaxExclusive - 1)}
	}
	mv := t.v.Truncate(2)
	for _, s := range m.STL {
		need, _ := parseVersion(s.RequiresCUDA)
		r.STL = append(r.STL, STLCheck{Release: s.Release, RequiresCUDA: s.RequiresCUDA, Accepts: mv.Compare(need) >= 0, Uncertain: s.Uncertain})
	}
	for _, ref := range t.SourceRefs {
		if s, ok := m.Sources[ref]; ok {
			r.Sources = append(r.Sources, fmt.Sprintf("%s: %s", ref, s))
		}
	}
	return r
}

// Minors lists the CUDA minors the matrix knows, oldest first ("11.0", ...).
func (m *Matrix) Minors() []string {
	var out []string
	seen := map[string]bool{}
	for i := range m.Toolkits {
		mv := m.Toolkits[i].MinorVersion()
		if !seen[mv] {
			seen[mv] = true
			out = append(out, mv)
		}
	}
	return out
}
