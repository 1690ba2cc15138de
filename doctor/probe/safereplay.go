package probe

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/llamactl/llamactl/internal/proc"
)

// safeReplay answers like proc.Replay but may be called from concurrent
// gatherers: proc.Replay appends to Calls without a lock.
type safeReplay struct {
	mu sync.Mutex
	r  *proc.Replay
}

func newSafeReplay(r *proc.Replay) *safeReplay { return &safeReplay{r: r} }

func (s *safeReplay) Run(ctx context.Context, c proc.Cmd) (proc.Result, error) {
	s.mu.Lock()
	k := strings.TrimSpace(joinCmd(c))
	s.r.Calls = append(s.r.Calls, k)
	rec, ok := s.r.Commands[k]
	s.mu.Unlock()
	if !ok || rec.NotFound {
		return proc.Result{ExitCode: -1}, fmt.Errorf("%s: %w", c.Name, proc.ErrNotFound)
	}
	if rec.Hang {
		timeout := c.Timeout
		if timeout <= 0 {
			timeout = proc.DefaultTimeout
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		<-ctx.Done()
		return proc.Result{ExitCode: -1, TimedOut: true}, fmt.Errorf("%s: %w after %s", c.String(), proc.ErrTimeout, timeout)
	}
	return proc.Result{Stdout: []byte(rec.Stdout), Stderr: []byte(rec.Stderr), ExitCode: rec.ExitCode}, nil
}

func (s *safeReplay) LookPath(name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.r.LookPath(name)
}

// joinCmd is proc.Replay's key: "name arg1 arg2", unquoted.
func joinCmd(c proc.Cmd) string {
	k := c.Name
	for _, a := range c.Args {
		k += " " + a
	}
	return k
}
