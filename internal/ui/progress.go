package ui

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// Unit is what a Progress counts.
type Unit int

const (
	// Bytes: a download (sizes in MiB, a rate).
	Bytes Unit = iota
	// Steps: Ninja's [n/m] (counts, an estimate of the time left).
	Steps
)

// Progress shows the advance of one long task: a live bar on an
// interactive terminal (github.com/vbauerster/mpb), redrawn in place; periodic
// plain lines elsewhere (CI logs, pipes, TERM=dumb, NO_COLOR, a terminal that
// reports no size); nothing with --json.
type Progress struct {
	label string
	unit  Unit
	now   func() time.Time
	start time.Time

	mu      sync.Mutex
	wmu     sync.Mutex // what, read by the bar's decorator
	plain   io.Writer  // nil: live bar or silent
	every   bool       // plain: a line per update (--verbose)
	last    time.Time
	lastPct int64
	what    string
	pending func() // plain: the last state, when it was not printed

	p   *mpb.Progress
	bar *mpb.Bar
}

// NewProgress starts a Progress for label on s's error stream.
func NewProgress(s *IOStreams, label string, unit Unit) *Progress {
	pr := &Progress{label: label, unit: unit, now: time.Now, lastPct: -1}
	pr.start = pr.now()
	switch {
	case s.JSON:
	case s.ErrTTY && sizedTerminal(s.ErrOut):
		pr.p = mpb.New(mpb.WithOutput(s.ErrOut), mpb.WithWidth(40), mpb.WithRefreshRate(200*time.Millisecond))
	default:
		pr.plain, pr.every = s.ErrOut, s.Verbose
	}
	return pr
}

// Update records done of total (total 0: unknown) and what is being done.
func (pr *Progress) Update(done, total int64, what string) {
	pr.wmu.Lock()
	pr.what = what
	pr.wmu.Unlock()
	if pr.p != nil {
		pr.mu.Lock()
		if pr.bar == nil {
			// total 0 when unknown (a download without a Content-Length):
			// mpb then never completes the bar on its own (with 1 it did at
			// the first bytes and froze there).
			pr.bar = pr.p.AddBar(max(total, 0),
				mpb.PrependDecorators(decor.Name(pr.label, decor.WCSyncSpaceR)),
				mpb.AppendDecorators(decor.Any(func(st decor.Statistics) string {
					t := st.Total
					if total <= 0 {
						t = 0
					}
					return ProgressText(pr.unit, st.Current, t, time.Since(pr.start), pr.currentWhat())
				})))
		}
		bar := pr.bar
		pr.mu.Unlock()
		if total > 0 {
			bar.SetTotal(total, false)
		}
		bar.SetCurrent(done)
		return
	}
	if pr.plain == nil {
		return
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	now := pr.now()
	pct := int64(-1)
	if total > 0 {
		pct = done * 10 / total
	}
	finished := total > 0 && done >= total
	every := 30 * time.Second
	if pr.unit == Bytes && total <= 0 {
		every = 10 * time.Second // no percentage to follow: the bytes so far every 10 s
	}
	due := pr.every || finished || (total > 0 && pct != pr.lastPct) || now.Sub(pr.last) >= every
	if pr.unit == Bytes && !finished && now.Sub(pr.last) < 2*time.Second {
		due = false // a download updates often: a line every 2 s at most
	}
	emit := func() {
		fmt.Fprintf(pr.plain, "%s: %s\n", pr.label, ProgressText(pr.unit, done, total, now.Sub(pr.start), what))
	}
	if !due {
		pr.pending = emit
		return
	}
	pr.last, pr.lastPct, pr.pending = now, pct, nil
	emit()
}

// sizedTerminal says w is a terminal file that reports its size. mpb draws
// only on an *os.File terminal, into as many rows as it reports: a
// pseudo-terminal nobody sized (0x0) or a wrapped stream (Windows' ASCII
// writer) would show no progress at all.
func sizedTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	cols, rows, err := term.GetSize(int(f.Fd()))
	return err == nil && cols > 0 && rows > 0
}

func (pr *Progress) currentWhat() string {
	pr.wmu.Lock()
	defer pr.wmu.Unlock()
	return pr.what
}

// ProgressText renders one progress state: "12.0 / 40.0 MiB (30%) 2.1 MiB/s"
// for bytes, "[57/216] 26% ETA 3m10s: Building CXX object …" for steps (the
// estimate is the elapsed time per step times the steps left), and for the
// last step how long it all took: "[216/216] 100% in 6m2s".
func ProgressText(u Unit, done, total int64, elapsed time.Duration, what string) string {
	var s string
	switch u {
	case Bytes:
		mb := func(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
		if total > 0 {
			s = fmt.Sprintf("%s / %s (%d%%)", mb(done), mb(total), done*100/total)
		} else {
			s = mb(done)
		}
		if sec := elapsed.Seconds(); sec > 0 {
			s += fmt.Sprintf(" %.1f MiB/s", float64(done)/(1<<20)/sec)
		}
	default:
		s = fmt.Sprintf("[%d/%d]", done, total)
		if total > 0 {
			s += fmt.Sprintf(" %d%%", done*100/total)
			if done > 0 && done < total {
				left := time.Duration(float64(elapsed) / float64(done) * float64(total-done)).Round(time.Second)
				s += " ETA " + left.String()
			}
			if done >= total {
				return s + " in " + elapsed.Round(time.Second).String()
			}
		}
	}
	if what != "" {
		s += ": " + what
	}
	return s
}

// Done ends the bar (leaving its last state on screen); plain lines end
// with the last state too (a download of unknown size has no 100 %).
func (pr *Progress) Done() {
	if pr.p == nil {
		pr.mu.Lock()
		if pr.pending != nil {
			pr.pending()
			pr.pending = nil
		}
		pr.mu.Unlock()
		return
	}
	pr.mu.Lock()
	bar := pr.bar
	pr.mu.Unlock()
	if bar != nil {
		bar.SetTotal(-1, true)
	}
	pr.p.Wait()
}
