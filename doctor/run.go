package doctor

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/llamactl/llamactl/machine"
)

// CheckFunc is one rule: a pure function of a snapshot.
type CheckFunc func(*machine.Snapshot) []Finding

// Options tune Run.
type Options struct {
	// Only runs just these check IDs (--check); empty runs all.
	Only []string
	// Backend is the backend the user asked for ("opencl", "vulkan"...), if any.
	Backend string
	// Timeout bounds each check (default 2s): a rule that loops becomes a finding.
	Timeout time.Duration
}

// DefaultCheckTimeout bounds one check. Checks are pure and take
// microseconds; the deadline only guards against a bug.
const DefaultCheckTimeout = 2 * time.Second

// funcs binds catalog IDs to their rule; the ones that depend on the
// requested backend are bound per run.
func funcs(o Options) map[string]CheckFunc {
	m := map[string]CheckFunc{}
	for id, f := range registry {
		m[id] = f
	}
	m["ocl.llama-compat"] = func(s *machine.Snapshot) []Finding { return checkOCLCompat(s, o.Backend) }
	m["vk.sdk"] = func(s *machine.Snapshot) []Finding { return checkVulkanSDK(s, o.Backend) }
	m["hip.sdk"] = func(s *machine.Snapshot) []Finding { return checkHIPSDK(s, o.Backend) }
	return m
}

// UnknownCheckError names a --check ID that is not in the catalog.
type UnknownCheckError struct{ ID string }

func (e *UnknownCheckError) Error() string {
	return fmt.Sprintf("no check named %q: run 'llamactl doctor --list-checks' to see them", e.ID)
}

// Validate reports an unknown ID among opts.Only.
func (o Options) Validate() error {
	for _, id := range o.Only {
		if _, ok := Info(id); !ok {
			return &UnknownCheckError{ID: id}
		}
	}
	return nil
}

// Run evaluates the checks concurrently, each under its own deadline, and
// returns their findings in catalog order. A check that panics or overruns
// its deadline becomes an error finding; Run itself never fails.
func Run(ctx context.Context, s *machine.Snapshot, o Options) []Finding {
	if s == nil {
		s = &machine.Snapshot{}
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultCheckTimeout
	}
	// Parse the embedded data (catalog, gates, the CUDA matrix) before any
	// deadline starts: the first parse is a one-time cost that would
	// otherwise be charged to whichever checks happen to wait on it, and on
	// a loaded machine that alone overran the deadline.
	cat := Catalog()
	g()
	fs := funcs(o)
	results := make([][]Finding, len(cat))
	var wg sync.WaitGroup
	for i, c := range cat {
		if len(o.Only) > 0 && !slices.Contains(o.Only, c.ID) {
			continue
		}
		if !slices.Contains(c.Platforms, platformOf(s)) {
			results[i] = []Finding{skip(c.ID, "platform", "os", platformName(s), "platforms", quoteList(c.Platforms))}
			continue
		}
		f, ok := fs[c.ID]
		if !ok {
			results[i] = []Finding{{ID: c.ID, Status: Error, Summary: "internal: check " + c.ID + " has no rule"}}
			continue
		}
		wg.Add(1)
		go func(i int, id string, f CheckFunc) {
			defer wg.Done()
			results[i] = runOne(ctx, s, id, f, timeout)
		}(i, c.ID, f)
	}
	wg.Wait()
	var out []Finding
	for _, r := range results {
		out = append(out, r...)
	}
	return out
}

func runOne(ctx context.Context, s *machine.Snapshot, id string, f CheckFunc, timeout time.Duration) []Finding {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	done := make(chan []Finding, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- []Finding{runFinding("check-crashed", "check", id, "error", fmt.Sprint(r))}
			}
		}()
		done <- f(s)
	}()
	var res []Finding
	select {
	case res = <-done:
	case <-ctx.Done():
		// The goroutine is abandoned: checks hold no resources, and the
		// buffered channel lets it finish without blocking.
		res = []Finding{runFinding("check-timeout", "check", id, "timeout", timeout.String())}
	}
	d := time.Since(start)
	for i := range res {
		res[i].ID = id
		res[i].Duration = d
	}
	return res
}

// platformOf maps the snapshot OS onto catalog platforms (WSL is linux).
func platformOf(s *machine.Snapshot) string {
	if s.OS.GOOS == "" {
		return "linux"
	}
	return s.OS.GOOS
}

func platformName(s *machine.Snapshot) string {
	if s.OS.Name != "" {
		return s.OS.Name
	}
	if s.OS.GOOS != "" {
		return s.OS.GOOS
	}
	return "unknown OS"
}

// runFinding is an error finding about a check itself (data/checks.json
// run_messages), e.g. one that crashed or overran its deadline.
func runFinding(key string, kv ...string) Finding {
	Catalog()
	f := Finding{Message: "meta/" + key, Status: Error, Args: kv}
	m, ok := catRun[key]
	if !ok {
		f.Summary = "internal: no text for " + f.Message
		return f
	}
	r := vars(kv).replacerPairs()
	f.Summary = r.fill(m.Summary)
	f.Fix = &Fix{Text: r.fill(m.Fix)}
	return f
}
