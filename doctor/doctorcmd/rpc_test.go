package doctorcmd

import (
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/runner/engine"
	"github.com/llamactl/llamactl/runner/rpcwire"
)

// doctor --rpc's lines: a good worker with its devices, one of another
// protocol version (the engine's RPCError) and one that cannot be reached
// (the dialer's own words), in English and in Chinese.
func TestRenderRPCInChinese(t *testing.T) {
	busy := &rpcwire.Error{Kind: "timeout", Endpoint: "10.0.0.4:50052", Step: "HELLO", Timeout: 10 * time.Second}
	ver := &engine.RPCError{Kind: "version", Endpoint: "10.0.0.2:50052", Version: "2.0.0", Line: "RPC server version mismatch: 2.0.0"}
	ws := []engine.RPCWorker{
		{Endpoint: "10.0.0.1:50052", Reachable: true, RTTMS: 0.42, Compatible: true,
			Devices:  []engine.Device{{ID: "RPC0", Name: "10.0.0.1:50052", TotalMiB: 8192, FreeMiB: 7000}},
			Protocol: "8.0.0", CmdRTTMS: 0.51, TransferBytes: 8 << 20, UploadMiBs: 110.25, DownloadMiBs: 112.5},
		{Endpoint: "10.0.0.4:50052", Reachable: true, RTTMS: 0.3, Compatible: true, TransferKind: busy.Kind, TransferError: busy.Error(), TransferErr: busy},
		{Endpoint: "10.0.0.2:50052", Reachable: true, RTTMS: 1.5, Kind: ver.Kind, Error: ver.Error(), Err: ver},
		{Endpoint: "10.0.0.3:50052", Kind: "unreachable", Error: "dial tcp 10.0.0.3:50052: connect: connection refused"},
	}
	render := func(l string) string {
		io, _, out, _ := ui.Test()
		renderRPC(io, ws, doctor.NewTranslator(l))
		return out.String()
	}
	en := render(doctor.LangEN)
	for _, want := range []string{"RPC workers", "10.0.0.1:50052: same RPC protocol as the engine, TCP round trip 0.42 ms", "RPC0: 8192 MiB, 7000 MiB free",
		"transfer test of 8 MiB (RPC protocol 8.0.0): upload 110.2 MiB/s, download 112.5 MiB/s, command round trip 0.51 ms",
		"10.0.0.4:50052: transfer rate not measured", "did not answer HELLO within 10 s",
		"reachable, TCP round trip 1.50 ms", ver.Error(), "connection refused"} {
		if !strings.Contains(en, want) {
			t.Errorf("English output lacks %q:\n%s", want, en)
		}
	}
	zh := render(doctor.LangZhCN)
	for _, want := range []string{"RPC worker", "10.0.0.1:50052：与引擎的 RPC 协议相同，TCP 往返 0.42 ms", "RPC0：8192 MiB，空闲 7000 MiB",
		"传输测试 8 MiB（RPC 协议 8.0.0）：上传 110.2 MiB/s，下载 112.5 MiB/s，命令往返 0.51 ms",
		"10.0.0.4:50052：未测量传输速率", "在 10 秒内没有回应 HELLO",
		"可以连接，TCP 往返 1.50 ms", "RPC worker 10.0.0.2:50052 使用 RPC 协议 2.0.0", "connection refused"} {
		if !strings.Contains(zh, want) {
			t.Errorf("Chinese output lacks %q:\n%s", want, zh)
		}
	}
	for _, l := range strings.Split(zh, "\n") {
		if w := testutil.EnglishLeft(l); w != "" {
			t.Errorf("English left (%q): %s", w, l)
		}
	}
}
