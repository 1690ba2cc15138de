package doctorcmd

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/internal/paths"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/runner/engine"
	"github.com/llamactl/llamactl/runner/rpcwire"
)

// probeRPC checks the --rpc workers with the engine llamactl run would use
// (its RPC client does the handshake; without an engine each worker says
// that this was not checked), then measures each reachable worker's
// transfer rate with llamactl's own RPC client (--rpc-transfer-mib).
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
	var wire *rpcwire.Options
	if o.RPCTransferMiB > 0 {
		wire = &rpcwire.Options{Bytes: int64(o.RPCTransferMiB) << 20}
	}
	ws := engine.ProbeRPC(ctx, f.Runner, eng, nil, o.RPC, wire)
	if eng == nil {
		for i := range ws {
			if ws[i].Reachable {
				ws[i].Kind = "engine"
				ws[i].Error = doctor.NewTranslator(doctor.LangEN).UI("rpc.not-checked", "why", why)
			}
		}
	}
	return ws
}

// renderRPC prints one line per worker, with its devices and its
// transfer test, in tr's language; a failed transfer test is a warning
// line of its own.
func renderRPC(s *ui.IOStreams, ws []engine.RPCWorker, tr *doctor.Translator) {
	if len(ws) == 0 {
		return
	}
	p := ui.NewPrinter(s)
	p.Heading(tr.UI("rpc.heading"))
	rtt := func(w engine.RPCWorker) string { return fmt.Sprintf("%.2f", w.RTTMS) }
	for _, w := range ws {
		if !w.Compatible {
			msg := w.Error
			if w.Err != nil {
				msg = w.Err.In(engine.Texts(tr.Lang))
			} else if w.Kind == "engine" && tr.Lang != doctor.LangEN {
				// "protocol version and devices not checked: " + the
				// engine locator's own words
				en := doctor.NewTranslator(doctor.LangEN).UI("rpc.not-checked", "why", "")
				if why, ok := strings.CutPrefix(msg, en); ok {
					msg = tr.UI("rpc.not-checked", "why", why)
				}
			}
			detail := []string{msg}
			if w.Reachable {
				detail = append([]string{tr.UI("rpc.reachable", "rtt", rtt(w))}, detail...)
			}
			p.Line(ui.Err, w.Endpoint, append(detail, transfer(w, tr)...)...)
			transferFailed(p, w, tr)
			continue
		}
		var devs []string
		for _, d := range w.Devices {
			devs = append(devs, tr.UI("rpc.device", "id", d.ID, "total", fmt.Sprint(d.TotalMiB), "free", fmt.Sprint(d.FreeMiB)))
		}
		p.Line(ui.OK, tr.UI("rpc.ok", "endpoint", w.Endpoint, "rtt", rtt(w)), append(devs, transfer(w, tr)...)...)
		transferFailed(p, w, tr)
	}
}

// transfer is the transfer test's line, when it measured.
func transfer(w engine.RPCWorker, tr *doctor.Translator) []string {
	if w.TransferBytes == 0 {
		return nil
	}
	return []string{tr.UI("rpc.transfer", "mib", fmt.Sprintf("%.3g", float64(w.TransferBytes)/(1<<20)), "protocol", w.Protocol,
		"up", fmt.Sprintf("%.1f", w.UploadMiBs), "down", fmt.Sprintf("%.1f", w.DownloadMiBs), "cmd", fmt.Sprintf("%.2f", w.CmdRTTMS))}
}

// transferFailed warns that the transfer test did not measure, and why.
func transferFailed(p *ui.Printer, w engine.RPCWorker, tr *doctor.Translator) {
	if w.TransferError == "" {
		return
	}
	msg := w.TransferError
	if w.TransferErr != nil {
		msg = w.TransferErr.Text(tr.Lang)
	}
	p.Line(ui.Warn, tr.UI("rpc.transfer-failed", "endpoint", w.Endpoint), msg)
}
