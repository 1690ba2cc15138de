package plan

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sync"

	"github.com/llamactl/llamactl/machine"
)

//go:embed data/vulkan.json
var vulkanJSON []byte

// VulkanRequirement is one thing a llama.cpp source needs from the Vulkan
// headers (data/vulkan.json).
type VulkanRequirement struct {
	ID                string   `json:"id"`
	What              string   `json:"what"`
	MarkerFile        string   `json:"marker_file"`
	Marker            string   `json:"marker"`
	MinHeader         int      `json:"min_header"`
	Complete          string   `json:"complete"`
	EngineWithout     string   `json:"engine_without"`
	EngineWithoutNote string   `json:"engine_without_note"`
	Sources           []string `json:"sources"`
}

// GlslcRequirement is a GLSL extension a llama.cpp source's shaders use
// whatever glslc supports (data/vulkan.json).
type GlslcRequirement struct {
	ID          string   `json:"id"`
	Extension   string   `json:"extension"`
	What        string   `json:"what"`
	FeatureTest string   `json:"feature_test"`
	MarkerFile  string   `json:"marker_file"`
	Marker      string   `json:"marker"`
	Sources     []string `json:"sources"`
}

// VulkanTable is data/vulkan.json.
type VulkanTable struct {
	HeaderRequirements []VulkanRequirement `json:"header_requirements"`
	GlslcRequirements  []GlslcRequirement  `json:"glslc_requirements"`
	NewerHeaders       struct {
		Tag    string `json:"tag"`
		Source string `json:"source"`
	} `json:"newer_headers"`
}

var vulkanTable = sync.OnceValue(func() *VulkanTable {
	var t VulkanTable
	if err := json.Unmarshal(vulkanJSON, &t); err != nil {
		panic("plan: data/vulkan.json: " + err.Error()) // a build-time data bug, caught by the tests
	}
	return &t
})

// Vulkan returns the Vulkan requirement table.
func Vulkan() *VulkanTable { return vulkanTable() }

// SourceFacts is what the engine's source tree says about itself
// (build/engine.ScanSource): which Vulkan header requirements its code has,
// which of the network options (options.json) its CMake knows.
type SourceFacts struct {
	Scanned     bool     `json:"scanned"`
	VulkanNeeds []string `json:"vulkan_needs,omitempty"`
	Options     []string `json:"options,omitempty"`
	// GlslcNeeds are the glslc requirements whose marker the tree has;
	// GlslcLacks those the build's glslc failed (its feature test did not
	// compile), with glslc's first error line.
	GlslcNeeds []string          `json:"glslc_needs,omitempty"`
	GlslcLacks map[string]string `json:"glslc_lacks,omitempty"`
	// Glslc is the glslc the feature tests ran.
	Glslc string `json:"glslc,omitempty"`
}

// GlslcFor returns the glslc a build uses: --cmake-arg
// Vulkan_GLSLC_EXECUTABLE, else the one doctor found.
func GlslcFor(s *machine.Snapshot, cmakeArgs []string) string {
	for _, a := range cmakeArgs {
		if c, err := ParseCacheArg(a); err == nil && c.Name == "Vulkan_GLSLC_EXECUTABLE" {
			return c.Value
		}
	}
	return s.Vulkan.Glslc
}

// vulkanGlslc refuses a build whose glslc failed a feature test the
// source's shaders need unconditionally (it would fail in the shader step).
func (pl *planner) vulkanGlslc() {
	for _, r := range Vulkan().GlslcRequirements {
		msg, lacks := pl.in.Source.GlslcLacks[r.ID]
		if !lacks {
			continue
		}
		osKey := "linux"
		if pl.win {
			osKey = "windows"
		}
		pl.blocker("vulkan-glslc-too-old", pl.in.Source.Glslc, r.Extension, msg, r.What, message("fix-vulkan-glslc-"+osKey).Text)
	}
}

// VulkanHeadersID is the plan entry (in Patches) that points the build at
// newer Vulkan headers; the failure ID it answers is VulkanHeadersFailure.
const (
	VulkanHeadersID      = "vulkan-headers"
	VulkanHeadersFailure = "vulkan-headers-too-old"
)

// headersInUse is the Vulkan headers the build will compile with: the
// user's Vulkan_INCLUDE_DIR, else what CMake finds by default.
func (pl *planner) headersInUse() (*machine.VulkanHeaders, string) {
	v := pl.in.Snapshot.Vulkan
	for _, a := range pl.in.CMakeArgs {
		c, err := ParseCacheArg(a)
		if err != nil || c.Name != "Vulkan_INCLUDE_DIR" {
			continue
		}
		for i, h := range v.Headers {
			if samePath(h.IncludeDir, c.Value) {
				return &v.Headers[i], "--cmake-arg"
			}
		}
		return nil, "--cmake-arg"
	}
	return v.DefaultHeaders(), "default"
}

// vulkanHeaders refuses a build whose Vulkan headers are older than the
// source needs (it would fail after minutes in ggml-vulkan.cpp), or, with
// --heal or a diagnosed vulkan-headers-too-old, points it at newer headers
// found on this machine.
func (pl *planner) vulkanHeaders() {
	v := pl.in.Snapshot.Vulkan
	var need *VulkanRequirement
	for i, r := range Vulkan().HeaderRequirements {
		if slices.Contains(pl.in.Source.VulkanNeeds, r.ID) && (need == nil || r.MinHeader > need.MinHeader) {
			need = &Vulkan().HeaderRequirements[i]
		}
	}
	cur, from := pl.headersInUse()
	healing := pl.in.Heal || slices.Contains(pl.in.Symptoms, VulkanHeadersFailure)
	min := 0
	if need != nil {
		min = need.MinHeader
	}
	if cur != nil && need == nil && !slices.Contains(pl.in.Symptoms, VulkanHeadersFailure) {
		pl.p.Reasons = append(pl.p.Reasons, message("reason-vulkan-headers", orNum(cur.Complete, cur.Version), cur.Version, cur.IncludeDir).Text)
		return
	}
	if cur == nil {
		if from == "--cmake-arg" {
			pl.warn("vulkan-headers-unread")
		}
		return
	}
	tooOld := need != nil && cur.Version < min
	if !tooOld && !slices.Contains(pl.in.Symptoms, VulkanHeadersFailure) {
		pl.p.Reasons = append(pl.p.Reasons, message("reason-vulkan-headers-need", orNum(cur.Complete, cur.Version), cur.Version, cur.IncludeDir, min, need.What).Text)
		return
	}
	// The newest other copy that is new enough (a diagnosed failure without
	// a known requirement: anything newer than what failed).
	var alt *machine.VulkanHeaders
	for i, h := range v.Headers {
		if samePath(h.IncludeDir, cur.IncludeDir) || h.Version <= cur.Version || h.Version < min {
			continue
		}
		if alt == nil || h.Version > alt.Version {
			alt = &v.Headers[i]
		}
	}
	if alt != nil && healing && from != "--cmake-arg" {
		pl.set("Vulkan_INCLUDE_DIR", alt.IncludeDir)
		why := message("patch-vulkan-headers-why", cur.IncludeDir, cur.Version).Text
		if need != nil {
			why = message("patch-vulkan-headers-why-need", cur.IncludeDir, cur.Version, need.What, need.Complete).Text
		}
		pl.p.Patches = append(pl.p.Patches, AppliedPatch{ID: VulkanHeadersID, Title: message("patch-vulkan-headers-title").Text, Reason: why,
			Changes: []string{"-DVulkan_INCLUDE_DIR=" + alt.IncludeDir}})
		return
	}
	if need == nil {
		// A diagnosed failure with nothing newer here: the failure's own fix says what to install.
		return
	}
	osKey := "linux"
	if pl.win {
		osKey = "windows"
	}
	var choice string
	if alt != nil {
		choice = message("fix-vulkan-headers-found", alt.IncludeDir, orNum(alt.Complete, alt.Version)).Text
	} else {
		dir := path.Join(orDefault(pl.in.CacheDir, "~/.cache/llamactl"), "vulkan-headers", Vulkan().NewerHeaders.Tag)
		if pl.win {
			dir = winJoin(orDefault(pl.in.CacheDir, `%LOCALAPPDATA%\llamactl`), "vulkan-headers", Vulkan().NewerHeaders.Tag)
		}
		choice = message("fix-vulkan-headers-"+osKey, Vulkan().NewerHeaders.Tag, dir).Text
	}
	older := message("fix-vulkan-headers-engine", need.EngineWithout, need.EngineWithoutNote).Text
	pl.blocker(VulkanHeadersFailure, need.What, need.Complete, fmt.Sprint(need.MinHeader), cur.IncludeDir, orNum(cur.Complete, cur.Version), choice, older)
}

func orNum(s string, n int) string {
	if s != "" {
		return s
	}
	return fmt.Sprint(n)
}

func orDefault(s, d string) string {
	if s != "" {
		return s
	}
	return d
}
