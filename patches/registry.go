// Package patches is llamactl's registry of known fixes for llama.cpp builds:
// each one says when it applies (OS, backend, toolkit and compiler versions,
// engine build range, the failure IDs it cures) and what it changes (CMake
// cache entries, compiler/linker flags, environment, an MSVC toolset choice or
// a unified diff). The facts live in data/patches.json; this file only
// decides which entries match a situation.
package patches

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"sync"

	"github.com/llamactl/llamactl/internal/version"
)

//go:embed data/patches.json
var registryJSON []byte

// KV is one named value: a CMake cache entry, a flag to append, an env var.
type KV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// When says when a patch applies. Empty fields do not constrain.
type When struct {
	OS       []string `json:"os,omitempty"`
	Backends []string `json:"backends,omitempty"`
	// CUDAMax/CUDAMin bound the selected toolkit ("12.3" matches 12.3.x).
	CUDAMax string `json:"cuda_max,omitempty"`
	CUDAMin string `json:"cuda_min,omitempty"`
	// MSVCMin is the lowest MSVC toolset ("14.40") the problem starts at.
	MSVCMin string `json:"msvc_min,omitempty"`
	// EngineMin/EngineMax bound llama.cpp's build number (0 = open).
	EngineMin int `json:"engine_min,omitempty"`
	EngineMax int `json:"engine_max,omitempty"`
	// NoGit: the source tree has no git metadata.
	NoGit bool `json:"no_git,omitempty"`
	// HostCompilerNeeded: the selection named an older host compiler for nvcc.
	HostCompilerNeeded bool `json:"host_compiler_needed,omitempty"`
	// Proactive patches apply whenever the conditions hold; the others only
	// when a failure with one of Symptoms was diagnosed (--heal).
	Proactive bool     `json:"proactive,omitempty"`
	Symptoms  []string `json:"symptoms,omitempty"`
}

// Changes is what a patch does. Values may hold placeholders the planner
// fills: {toolkit_root}, {toolkit_lib}, {host_compiler}, {build_number}, {commit}.
type Changes struct {
	Cache  []KV `json:"cache,omitempty"`  // -DNAME=VALUE
	Append []KV `json:"append,omitempty"` // appended (space-separated) to a flags entry
	Env    []KV `json:"env,omitempty"`    // environment of cmake and ninja
	// MSVCToolsetBelow selects the newest installed MSVC toolset below this
	// version (vcvarsall -vcvars_ver=).
	MSVCToolsetBelow string `json:"msvc_toolset_below,omitempty"`
	// Diff names a unified diff in data/diffs applied to the source tree.
	Diff string `json:"diff,omitempty"`
	// Requires names the explicit option this change set needs
	// ("allow-unsupported-compiler").
	Requires string `json:"requires,omitempty"`
	// Fallback is used when the primary change cannot be made (no older
	// toolset installed) and its Requires option was given.
	Fallback *Changes `json:"fallback,omitempty"`
}

// Patch is one registry entry.
type Patch struct {
	ID      string  `json:"id"`
	Title   string  `json:"title"`
	Why     string  `json:"why"`
	Source  string  `json:"source"`
	When    When    `json:"when"`
	Changes Changes `json:"changes"`
}

// Registry is the set of known patches, sorted by ID.
type Registry struct {
	Patches []Patch `json:"patches"`
	diffs   fs.FS   // where changes.diff files are read from
}

var (
	defaultOnce sync.Once
	defaultReg  *Registry
	defaultErr  error
)

// Default returns the embedded registry. It panics only if the embedded
// data is invalid, which TestDefaultRegistryValid guards.
func Default() *Registry {
	defaultOnce.Do(func() {
		sub, err := fs.Sub(diffFS, "data/diffs")
		if err != nil {
			defaultErr = err
			return
		}
		defaultReg, defaultErr = ParseFS(registryJSON, sub)
	})
	if defaultErr != nil {
		panic(defaultErr)
	}
	return defaultReg
}

// Parse reads and validates a registry document whose diffs are the
// embedded ones.
func Parse(data []byte) (*Registry, error) {
	sub, err := fs.Sub(diffFS, "data/diffs")
	if err != nil {
		return nil, err
	}
	return ParseFS(data, sub)
}

// ParseFS reads a registry whose changes.diff files are in diffs.
func ParseFS(data []byte, diffs fs.FS) (*Registry, error) {
	r := Registry{diffs: diffs}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("patch registry: %w", err)
	}
	seen := map[string]bool{}
	for _, p := range r.Patches {
		switch {
		case p.ID == "" || p.Title == "" || p.Why == "" || p.Source == "":
			return nil, fmt.Errorf("patch registry: entry %q lacks id, title, why or source", p.ID)
		case seen[p.ID]:
			return nil, fmt.Errorf("patch registry: duplicate id %q", p.ID)
		case !p.When.Proactive && len(p.When.Symptoms) == 0:
			return nil, fmt.Errorf("patch registry: %s is neither proactive nor tied to a symptom", p.ID)
		}
		seen[p.ID] = true
		if p.Changes.Diff != "" {
			if _, err := fs.ReadFile(diffs, p.Changes.Diff); err != nil {
				return nil, fmt.Errorf("patch registry: %s: diff %s: %w", p.ID, p.Changes.Diff, err)
			}
		}
	}
	sort.Slice(r.Patches, func(i, j int) bool { return r.Patches[i].ID < r.Patches[j].ID })
	return &r, nil
}

// Get returns the patch with id.
func (r *Registry) Get(id string) (Patch, bool) {
	for _, p := range r.Patches {
		if p.ID == id {
			return p, true
		}
	}
	return Patch{}, false
}

// IDs lists the patch IDs.
func (r *Registry) IDs() []string {
	var ids []string
	for _, p := range r.Patches {
		ids = append(ids, p.ID)
	}
	return ids
}

// Situation is what matching looks at: the machine, the selection, the
// engine and the failures diagnosed so far.
type Situation struct {
	OS                 string
	Backend            string
	CUDA               string // selected toolkit version, "12.3.107"
	MSVCToolset        string // default toolset of the chosen VS, "14.41.34120"
	EngineBuild        int    // 0 = unknown
	NoGit              bool
	HostCompilerNeeded bool
	Symptoms           []string // failure IDs from the knowledge base
}

// Match returns the patches that apply to s, in ID order, each with the
// reason it matched.
func (r *Registry) Match(s Situation) []Matched {
	var out []Matched
	for _, p := range r.Patches {
		if why, ok := p.applies(s); ok {
			out = append(out, Matched{Patch: p, Reason: why})
		}
	}
	return out
}

// Matched is a patch chosen for a situation.
type Matched struct {
	Patch
	Reason string `json:"reason"`
}

func (p Patch) applies(s Situation) (string, bool) {
	w := p.When
	if len(w.OS) > 0 && !slices.Contains(w.OS, s.OS) {
		return "", false
	}
	if len(w.Backends) > 0 && !slices.Contains(w.Backends, s.Backend) {
		return "", false
	}
	if w.CUDAMax != "" && (s.CUDA == "" || version.ComparePrefix(s.CUDA, w.CUDAMax) > 0) {
		return "", false
	}
	if w.CUDAMin != "" && (s.CUDA == "" || version.ComparePrefix(s.CUDA, w.CUDAMin) < 0) {
		return "", false
	}
	if w.MSVCMin != "" && (s.MSVCToolset == "" || version.ComparePrefix(s.MSVCToolset, w.MSVCMin) < 0) {
		return "", false
	}
	if w.EngineMin > 0 && (s.EngineBuild == 0 || s.EngineBuild < w.EngineMin) {
		return "", false
	}
	if w.EngineMax > 0 && s.EngineBuild > w.EngineMax {
		return "", false
	}
	if w.NoGit && !s.NoGit {
		return "", false
	}
	if w.HostCompilerNeeded && !s.HostCompilerNeeded {
		return "", false
	}
	for _, sym := range s.Symptoms {
		if slices.Contains(w.Symptoms, sym) {
			return "diagnosed " + sym, true
		}
	}
	if w.Proactive {
		return "conditions hold on this machine", true
	}
	return "", false
}

// Healers are the IDs of the patches --heal applies for a failure ID (a
// symptom their when.symptoms name), in registry order.
func (r *Registry) Healers(failureID string) []string {
	var out []string
	for _, p := range r.Patches {
		if slices.Contains(p.When.Symptoms, failureID) {
			out = append(out, p.ID)
		}
	}
	return out
}
