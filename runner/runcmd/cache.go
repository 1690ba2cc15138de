package runcmd

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/llamactl/llamactl/internal/paths"
	"github.com/llamactl/llamactl/runner/engine"
	"github.com/llamactl/llamactl/runner/gguf"
	"github.com/llamactl/llamactl/runner/plan"
)

// PlanCache remembers a plan that launched successfully, per (model,
// device set, engine build), in the user cache, so the next run starts at
// once. The calibration learnt from the engine's report is kept with it.
type PlanCache struct {
	Dir string // "" disables the cache
}

// CachedPlan is one cache entry.
type CachedPlan struct {
	Key         string           `json:"key"`
	Plan        plan.Plan        `json:"plan"`
	Calibration plan.Calibration `json:"calibration"`
	Saved       time.Time        `json:"saved"`
}

// CacheKey identifies the model (its header hash and size: the header
// holds every tensor's shape and type), the device set and engine build.
func CacheKey(gf *gguf.File, m gguf.Model, devs []engine.Device, build int, userFlags string) string {
	h := sha256.New()
	fmt.Fprintf(h, "size=%d header=%d tensors=%d arch=%s vocab=%s\n", gf.FileSize, gf.HeaderSize, len(gf.Tensors), m.Architecture, m.Tokenizer.TokensHash)
	for _, t := range gf.Tensors {
		fmt.Fprintf(h, "%s %d %d %d\n", t.Name, t.Type, t.Shard, t.Offset)
	}
	var ids []string
	for _, d := range devs {
		ids = append(ids, d.ID+"="+d.Name)
	}
	fmt.Fprintf(h, "devices=%s build=%d flags=%s\n", strings.Join(ids, ","), build, userFlags)
	return hex.EncodeToString(h.Sum(nil))[:32]
}

func (c PlanCache) path(key string) string { return filepath.Join(c.Dir, "plan-"+key+".json") }

// Load returns the cached plan for key.
func (c PlanCache) Load(key string) (CachedPlan, bool) {
	if c.Dir == "" {
		return CachedPlan{}, false
	}
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		return CachedPlan{}, false
	}
	var cp CachedPlan
	if json.Unmarshal(b, &cp) != nil || cp.Key != key || cp.Plan.Ctx == 0 {
		return CachedPlan{}, false
	}
	return cp, true
}

// Save stores a plan (atomically: write then rename).
func (c PlanCache) Save(cp CachedPlan) error {
	if c.Dir == "" {
		return nil
	}
	b, err := json.MarshalIndent(cp, "", "  ")
	if err != nil {
		return err
	}
	// A unique temp name: two runs saving at once must not share one.
	return paths.WriteFileAtomic(c.path(cp.Key), b)
}

// Forget removes the entry (--retune).
func (c PlanCache) Forget(key string) {
	if c.Dir != "" {
		_ = os.Remove(c.path(key))
	}
}
