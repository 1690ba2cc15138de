package engine

import (
	"os"
	"strings"
	"testing"
)

// The engine's own words (testdata/logs: recorded and written from
// ggml-rpc.cpp) become typed errors naming the worker.
func TestParseRPCError(t *testing.T) {
	for _, c := range []struct {
		file, kind, endpoint, version string
	}{
		{"here-rpc-worker-unreachable.log", "unreachable", "127.0.0.1:50999", ""},
		{"here-rpc-version-mismatch.log", "version", "127.0.0.1:50181", "8.0.0"},
	} {
		b, err := os.ReadFile("../../testdata/logs/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		body := string(b)
		if _, after, ok := strings.Cut(body, "# ---\n"); ok {
			body = after // the recording's header is not engine output
		}
		e := ParseRPCError(body)
		if e == nil || e.Kind != c.kind || e.Endpoint != c.endpoint || e.Version != c.version {
			t.Errorf("%s: %+v", c.file, e)
			continue
		}
		if msg := e.Error(); !strings.Contains(msg, c.endpoint) || !strings.Contains(msg, "llamactl") {
			t.Errorf("%s: message without the worker or the fix: %s", c.file, msg)
		}
	}
	if e := ParseRPCError("RPC0: 127.0.0.1:50052 (64 MiB, 64 MiB free)\n"); e != nil {
		t.Errorf("a healthy listing parsed as %+v", e)
	}
	if e := ParseRPCError("RPC handshake failed for 10.0.0.2:50052\n"); e == nil || e.Kind != "handshake" {
		t.Errorf("handshake: %+v", e)
	}
}
