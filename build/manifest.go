package build

import (
	"time"

	"github.com/llamactl/llamactl/build/msvcenv"
	"github.com/llamactl/llamactl/build/plan"
)

// ManifestName is the file written beside the binaries.
const ManifestName = "manifest.json"

// ManifestSchema is the manifest's version (docs/build.md).
const ManifestSchema = 1

// Manifest records what went into a build.
type Manifest struct {
	Schema    int                 `json:"schema"`
	Llamactl  string              `json:"llamactl_version"`
	CreatedAt time.Time           `json:"created_at"`
	Engine    plan.Engine         `json:"engine"`
	Backend   string              `json:"backend"`
	Plan      ManifestPlan        `json:"plan"`
	Toolchain map[string]string   `json:"toolchain,omitempty"`
	Patches   []plan.AppliedPatch `json:"patches"`
	Artifacts []Artifact          `json:"artifacts"`
	Durations map[string]float64  `json:"durations_seconds"`
	Verify    *Verification       `json:"verify,omitempty"`
	NoOp      bool                `json:"no_op,omitempty"`
	// Heal is what --heal changed (attempt 0: before CMake ran), Attempts
	// how many configure/compile attempts the build took (1 + retries).
	Heal     []plan.Fix `json:"heal,omitempty"`
	Attempts int        `json:"attempts"`
	// StoppedAfter is set when --stop-after ended the build early (no
	// verification, no artifacts).
	StoppedAfter string `json:"stopped_after,omitempty"`
}

// ManifestPlan is the part of the plan that decides the binaries.
type ManifestPlan struct {
	Generator  string           `json:"generator"`
	Cache      []plan.CacheArg  `json:"cmake_options"`
	Env        []plan.EnvVar    `json:"env,omitempty"`
	VCVars     *plan.VCVars     `json:"vcvars,omitempty"`
	EnvChanges []msvcenv.Change `json:"msvc_env_changes,omitempty"`
	Configure  plan.Command     `json:"configure"`
	Build      plan.Command     `json:"build"`
	// Offline is what llamactl turned off so the build did not reach the network.
	Offline []plan.Note `json:"offline,omitempty"`
	Targets []string    `json:"targets,omitempty"`
}

func (r *runner) manifest() Manifest {
	p := r.res.Plan
	d := map[string]float64{}
	for _, s := range r.res.Steps {
		d[s.Name] += s.Seconds
	}
	patches := p.Patches
	if patches == nil {
		patches = []plan.AppliedPatch{}
	}
	return Manifest{
		Schema: ManifestSchema, Llamactl: r.deps.Llamactl, CreatedAt: r.deps.Now().UTC(),
		Engine: p.Engine, Backend: p.Backend,
		Plan: ManifestPlan{Generator: p.Generator, Cache: p.Cache, Env: p.Env, VCVars: p.VCVars, EnvChanges: r.res.EnvChanges,
			Configure: p.Configure, Build: p.Build, Offline: p.Offline, Targets: p.Targets},
		Toolchain: r.res.Toolchain, Patches: patches, Artifacts: r.res.Artifacts, Durations: d, Verify: r.res.Verify, NoOp: r.res.NoOp,
		Heal: r.res.Fixes, Attempts: r.res.Attempts, StoppedAfter: r.res.StoppedAfter,
	}
}
