package engine

import (
	"context"
	"math"
	"net"
	"sort"
	"time"

	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/runner/rpcwire"
)

// RPCWorker is what `llamactl doctor --rpc` learned about one RPC worker:
// whether it accepts connections, the TCP round-trip time, through the
// engine's own RPC client (which does the protocol handshake) whether its
// protocol version matches and which devices and memory it offers, and,
// through llamactl's own client of the protocol (runner/rpcwire), its
// protocol version, the round trip of a small command and the measured
// upload and download rates of a payload written to it and read back.
type RPCWorker struct {
	Endpoint  string  `json:"endpoint"`
	Reachable bool    `json:"reachable"`
	RTTMS     float64 `json:"rtt_ms,omitempty"` // median TCP connect time of 5
	// Compatible: the engine's handshake accepted the worker's protocol.
	Compatible bool     `json:"compatible"`
	Devices    []Device `json:"devices,omitempty"`
	Kind       string   `json:"error_kind,omitempty"` // unreachable, version, handshake, engine
	Error      string   `json:"error,omitempty"`
	// Err is the engine's failure behind Error, for the human output in
	// another language; nil when Error is another program's words.
	Err Texter `json:"-"`

	// The transfer test (rpcwire.Measure): the worker's protocol version
	// from its HELLO, the median round trip of a small command, the bytes
	// sent up and read back, and the median rates of three rounds.
	Protocol      string  `json:"protocol,omitempty"`
	CmdRTTMS      float64 `json:"command_rtt_ms,omitempty"`
	TransferBytes int64   `json:"transfer_bytes,omitempty"`
	UploadMiBs    float64 `json:"upload_mib_s,omitempty"`
	DownloadMiBs  float64 `json:"download_mib_s,omitempty"`
	// A transfer test that failed: rpcwire.Error's kind and words (a
	// warning: the rate is unknown, the worker may still serve).
	TransferKind  string         `json:"transfer_error_kind,omitempty"`
	TransferError string         `json:"transfer_error,omitempty"`
	TransferErr   *rpcwire.Error `json:"-"`
}

// Dialer opens TCP connections (net.Dialer in production).
type Dialer func(ctx context.Context, network, addr string) (net.Conn, error)

// ProbeRPC checks each worker on its own (the engine aborts at the first
// bad worker, so one bad worker cannot hide the others). e may be nil (no
// engine found): then the engine's handshake and device list are missing.
// wire, when not nil, bounds the transfer test of each reachable worker.
func ProbeRPC(ctx context.Context, r proc.Runner, e *Engine, dial Dialer, endpoints []string, wire *rpcwire.Options) []RPCWorker {
	if dial == nil {
		dial = (&net.Dialer{Timeout: 3 * time.Second}).DialContext
	}
	var out []RPCWorker
	for _, ep := range endpoints {
		w := RPCWorker{Endpoint: ep}
		var rtts []float64
		for i := 0; i < 5; i++ {
			t0 := time.Now()
			c, err := dial(ctx, "tcp", ep)
			if err != nil {
				w.Kind, w.Error = "unreachable", err.Error()
				break
			}
			rtts = append(rtts, float64(time.Since(t0).Microseconds())/1000)
			c.Close()
		}
		if len(rtts) == 5 {
			sort.Float64s(rtts)
			w.Reachable, w.RTTMS = true, rtts[2]
		}
		if w.Reachable && e != nil {
			devs, err := e.ListDevicesRPC(ctx, r, []string{ep})
			switch re := err.(type) {
			case nil:
				w.Compatible = true
				for _, d := range devs {
					if len(d.ID) >= 3 && d.ID[:3] == "RPC" {
						w.Devices = append(w.Devices, d)
					}
				}
			case *RPCError:
				w.Kind, w.Error, w.Err = re.Kind, re.Error(), re
			case *ListError:
				w.Kind, w.Error, w.Err = "engine", re.Error(), re
			default:
				w.Kind, w.Error = "engine", err.Error()
			}
		}
		if w.Reachable && wire != nil {
			res, err := rpcwire.MeasureEndpoint(ctx, dial, ep, *wire)
			if res != nil {
				w.Protocol, w.CmdRTTMS, w.TransferBytes = res.Version, math.Round(res.CmdRTTMS*1000)/1000, res.Bytes
				w.UploadMiBs, w.DownloadMiBs = math.Round(res.UploadMiBs*10)/10, math.Round(res.DownloadMiB*10)/10
			}
			if err != nil {
				w.TransferKind, w.TransferError = "io", err.Error()
				if we, ok := err.(*rpcwire.Error); ok {
					w.TransferKind, w.TransferErr, w.Protocol = we.Kind, we, we.Version
				}
			}
		}
		out = append(out, w)
	}
	return out
}
