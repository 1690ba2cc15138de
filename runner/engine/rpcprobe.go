package engine

import (
	"context"
	"net"
	"sort"
	"time"

	"github.com/llamactl/llamactl/internal/proc"
)

// RPCWorker is what `llamactl doctor --rpc` learned about one RPC worker:
// whether it accepts connections, the TCP round-trip time, and, through
// the engine's own RPC client (which does the protocol handshake), whether
// its protocol version matches and which devices and memory it offers.
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
}

// Dialer opens TCP connections (net.Dialer in production).
type Dialer func(ctx context.Context, network, addr string) (net.Conn, error)

// ProbeRPC checks each worker on its own (the engine aborts at the first
// bad worker, so one bad worker cannot hide the others). e may be nil (no
// engine found): then only reachability and latency are measured.
func ProbeRPC(ctx context.Context, r proc.Runner, e *Engine, dial Dialer, endpoints []string) []RPCWorker {
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
		out = append(out, w)
	}
	return out
}
