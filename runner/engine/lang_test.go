package engine

import (
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/testutil"
)

// data/text.zh-CN.json translates every RPC failure; the English text is
// Error()'s, the Chinese one keeps the endpoint, the version, the engine's
// own line and the commands.
func TestZhCNTexts(t *testing.T) {
	testutil.CheckTextFiles(t, textEN, textZhCN)
	zc := Texts(lang.ZhCN)
	for _, e := range []*ListError{
		{Path: "/e/llama-server", RPC: []string{"10.0.0.2:50052"}},
		{Path: "/e/llama-server", RPC: []string{"10.0.0.2:50052", "10.0.0.3:50052"}, ExitCode: 1, Line: "error: unknown argument: --rpc"},
	} {
		en, got := e.Error(), e.In(zc)
		if !strings.Contains(en, e.Path) || !strings.Contains(got, e.Path) || !strings.Contains(got, e.Line) || testutil.EnglishLeft(got) != "" || got == en {
			t.Errorf("%+v: %q / %q", e, en, got)
		}
	}
	for _, e := range []*RPCError{
		{Kind: "unreachable", Endpoint: "10.0.0.2:50052", Line: "Failed to connect to 10.0.0.2:50052"},
		{Kind: "version", Endpoint: "10.0.0.2:50052", Version: "2.0.0", Line: "RPC server version mismatch: 2.0.0"},
		{Kind: "handshake", Endpoint: "10.0.0.2:50052", Line: "RPC handshake failed for 10.0.0.2:50052"},
	} {
		if got := e.In(Texts(lang.EN)); got != e.Error() || !strings.Contains(got, `"`+e.Line+`"`) {
			t.Errorf("%s: English %q", e.Kind, got)
		}
		got := e.In(zc)
		if w := testutil.EnglishLeft(got); w != "" || !strings.Contains(got, e.Endpoint) || !strings.Contains(got, `"`+e.Line+`"`) || !strings.Contains(got, e.Version) {
			t.Errorf("%s: Chinese %q (English left: %q)", e.Kind, got, w)
		}
	}
}
