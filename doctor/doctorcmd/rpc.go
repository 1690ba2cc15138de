package doctorcmd

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"github.com/llamactl/llamactl/internal/paths"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/runner/engine"
)

// probeRPC checks the --rpc workers with the engine llamactl run would use
// (its RPC client does the handshake); without an engine only reachability
// and latency are measured, and each worker says so.
func probeRPC(ctx context.Context, o *Options) []engine.RPCWorker {
	f := o.F
	loc := engine.Locator{Getenv: f.Getenv, ReadFile: os.ReadFile, Stat: os.Stat, CacheDir: paths.CacheDir(runtime.GOOS, f.Getenv), Runner: f.Runner}
	var eng *engine.Engine
	var why string
	if p, src, err := loc.Find(); err != nil {
		why = err.Error()
	} else if e, err := engine.Probe(ctx, f.Runner, p, src); err != nil {
		why = err.Error()
	} else {
		eng = e
	}
	ws := engine.ProbeRPC(ctx, f.Runner, eng, nil, o.RPC)
	if eng == nil {
		for i := range ws {
			if ws[i].Reachable {
				ws[i].Kind = "engine"
				ws[i].Error = "protocol version and devices not checked: " + why
			}
		}
	}
	return ws
}

// renderRPC prints one line per worker, with its devices.
func renderRPC(s *ui.IOStreams, ws []engine.RPCWorker) {
	if len(ws) == 0 {
		return
	}
	p := ui.NewPrinter(s)
	p.Heading("RPC workers")
	for _, w := range ws {
		if !w.Compatible {
			detail := []string{w.Error}
			if w.Reachable {
				detail = append([]string{fmt.Sprintf("reachable, TCP round trip %.2f ms", w.RTTMS)}, detail...)
			}
			p.Line(ui.Err, w.Endpoint, detail...)
			continue
		}
		var devs []string
		for _, d := range w.Devices {
			devs = append(devs, fmt.Sprintf("%s: %d MiB, %d MiB free", d.ID, d.TotalMiB, d.FreeMiB))
		}
		p.Line(ui.OK, fmt.Sprintf("%s: same RPC protocol as the engine, TCP round trip %.2f ms", w.Endpoint, w.RTTMS), devs...)
	}
}
