package probe

import (
	"context"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/machine"
)

// gatherer fills one part of the snapshot. It reads the shared base (OS,
// env, PATH, tool hits, filled before gatherers start) and returns a function
// that writes its part; Gather applies it only when the gatherer finished in
// time, so a gatherer left running after its deadline never races the result.
type gatherer struct {
	name string
	run  func(ctx context.Context, g *gctx) func(*machine.Snapshot)
}

// gctx is one gatherer's view: its deps, the read-only base snapshot, and
// its own raw outputs and errors.
type gctx struct {
	mu   sync.Mutex // run and errorf may be called from a gatherer's own goroutines
	d    *Deps
	base *machine.Snapshot
	raw  map[string]string
	errs []machine.ProbeError
	name string
}

func (g *gctx) goos() string { return g.d.GOOS }

func (g *gctx) errorf(format string, a ...any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.errs = append(g.errs, machine.ProbeError{Probe: g.name, Error: fmt.Sprintf(format, a...)})
}

// run runs one command through the Runner with the command deadline and
// keeps its output for --verbose. It returns stdout+stderr as valid UTF-8
// (tools print in the console code page; invalid bytes become U+FFFD) and
// whether the command ran at all.
func (g *gctx) run(ctx context.Context, name string, args ...string) (proc.Result, string, bool) {
	c := proc.Cmd{Name: name, Args: args, Timeout: g.d.CommandTimeout}
	res, err := g.d.Runner.Run(ctx, c)
	line := c.String()
	out := strings.ToValidUTF8(string(res.Stdout), "\uFFFD")
	if len(res.Stderr) > 0 {
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += strings.ToValidUTF8(string(res.Stderr), "\uFFFD")
	}
	if err != nil {
		if res.TimedOut || strings.Contains(err.Error(), proc.ErrTimeout.Error()) {
			g.mu.Lock()
			g.errs = append(g.errs, machine.ProbeError{Probe: g.name, Error: err.Error(), TimedOut: true})
			g.mu.Unlock()
		} else if !strings.Contains(err.Error(), proc.ErrNotFound.Error()) {
			g.errorf("%v", err)
		}
		return res, out, false
	}
	g.mu.Lock()
	g.raw[line] = truncate(out, 64<<10)
	g.mu.Unlock()
	return res, out, true
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "\n[truncated]"
}

// Gather collects the snapshot. It never fails: a gatherer that errors,
// panics or runs past its deadline becomes a ProbeError and the rest of the
// snapshot is returned.
func Gather(ctx context.Context, d Deps) *machine.Snapshot {
	wall0 := time.Now() // real elapsed time, even when Now is a recorded clock
	d = withDefaults(d)
	start := d.Now()
	s := &machine.Snapshot{Schema: machine.SchemaVersion, Llamactl: d.Version, TakenAt: start.UTC()}
	s.OS.GOOS, s.OS.Arch = d.GOOS, d.GOARCH
	gatherBase(&d, s)

	type done struct {
		apply func(*machine.Snapshot)
		g     *gctx
		dur   time.Duration
		panic string
	}
	gs := gatherers(d.GOOS)
	results := make([]chan done, len(gs))
	for i, gr := range gs {
		ch := make(chan done, 1)
		results[i] = ch
		g := &gctx{d: &d, base: cloneBase(s), raw: map[string]string{}, name: gr.name}
		gctx2, cancel := context.WithTimeout(ctx, d.Timeout)
		go func(gr gatherer) {
			defer cancel()
			t0 := time.Now()
			defer func() {
				if r := recover(); r != nil {
					ch <- done{g: g, dur: time.Since(t0), panic: fmt.Sprintf("%v\n%s", r, firstLines(string(debug.Stack()), 12))}
				}
			}()
			apply := gr.run(gctx2, g)
			ch <- done{apply: apply, g: g, dur: time.Since(t0)}
		}(gr)
	}
	// Wait in a fixed order so the snapshot is deterministic; every wait is
	// bounded by the gatherer's deadline plus a grace for the goroutine to
	// notice it.
	deadline := time.NewTimer(d.Timeout + 2*time.Second)
	defer deadline.Stop()
	var timings []machine.GatherTiming
	expired := false
	for i, ch := range results {
		var r done
		ok := false
		if !expired {
			select {
			case r = <-ch:
				ok = true
			case <-deadline.C:
				expired = true
			}
		}
		if !ok {
			select {
			case r = <-ch:
				ok = true
			default:
			}
		}
		switch {
		case ok:
			timings = append(timings, machine.GatherTiming{Name: gs[i].name, Duration: r.dur})
			if r.panic != "" {
				s.ProbeErrors = append(s.ProbeErrors, machine.ProbeError{Probe: gs[i].name, Error: "probe crashed: " + r.panic})
				continue
			}
			if r.apply != nil {
				r.apply(s)
			}
			s.ProbeErrors = append(s.ProbeErrors, r.g.errs...)
			for k, v := range r.g.raw {
				if s.Raw == nil {
					s.Raw = map[string]string{}
				}
				s.Raw[k] = v
			}
		default:
			// past the shared deadline: its facts are missing, the rest stand
			s.ProbeErrors = append(s.ProbeErrors, machine.ProbeError{Probe: gs[i].name, Error: fmt.Sprintf("did not finish within %s; its facts are missing", d.Timeout), TimedOut: true})
			timings = append(timings, machine.GatherTiming{Name: gs[i].name, Duration: d.Timeout, TimedOut: true})
		}
	}
	sort.SliceStable(s.ProbeErrors, func(i, j int) bool {
		a, b := s.ProbeErrors[i], s.ProbeErrors[j]
		if a.Probe != b.Probe {
			return a.Probe < b.Probe
		}
		return a.Error < b.Error
	})
	s.Timings = &machine.Timings{Gatherers: timings, Wall: time.Since(wall0)}
	return s
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

func withDefaults(d Deps) Deps {
	if d.GOOS == "" {
		d.GOOS = goosHost()
	}
	if d.Runner == nil {
		d.Runner = &proc.Replay{}
	}
	if r, ok := d.Runner.(*proc.Replay); ok {
		d.Runner = newSafeReplay(r)
	}
	if d.FS == nil {
		d.FS = NewMemFS(d.GOOS, nil)
	}
	if d.Getenv == nil {
		d.Getenv = func(string) string { return "" }
	}
	if d.Environ == nil {
		d.Environ = func() []string { return nil }
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Timeout <= 0 {
		d.Timeout = DefaultGathererTimeout
	}
	if d.CommandTimeout <= 0 {
		d.CommandTimeout = DefaultCommandTimeout
	}
	return d
}

// cloneBase copies what gatherers read, so the main goroutine can apply
// results while late gatherers still read their own copy.
func cloneBase(s *machine.Snapshot) *machine.Snapshot {
	c := &machine.Snapshot{OS: s.OS, Path: append([]machine.PathEntry(nil), s.Path...)}
	c.Env = map[string]string{}
	for k, v := range s.Env {
		c.Env[k] = v
	}
	c.Tools = map[string][]machine.ToolHit{}
	for k, v := range s.Tools {
		c.Tools[k] = append([]machine.ToolHit(nil), v...)
	}
	return c
}

// each runs f(0..n-1) concurrently and waits: a gatherer with several
// independent commands (one nvcc per toolkit, one --version per compiler)
// pays for the slowest, not the sum (process start is slow on Windows).
func each(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			f(i)
		}(i)
	}
	wg.Wait()
}
