package matrixcmd_test

import (
	"encoding/json"
	"testing"

	"github.com/llamactl/llamactl/internal/cli"
	"github.com/llamactl/llamactl/internal/cmdutil"
)

// Through the real root command: the global --json reaches the matrix
// commands and exit codes come out as documented.
func TestThroughRootCommand(t *testing.T) {
	cases := []struct {
		args []string
		code int
		json bool
	}{
		{[]string{"--json", "matrix", "resolve", "--gpu", "NVIDIA GeForce RTX 4090", "--driver", "560.94", "--os", "windows", "--msvc", "19.41"}, 0, true},
		{[]string{"matrix", "gpu", "--json", "RTX 9090"}, 1, true},
		{[]string{"matrix", "resolve", "--gpu", "GTX 1080", "--toolkit", "13.0"}, 1, false},
		{[]string{"matrix", "cuda"}, 2, false},
		{[]string{"matrix", "resolve", "--bogus"}, 2, false},
		{[]string{"matrix", "cuda", "12.7"}, 2, false},
	}
	for _, c := range cases {
		f, out, _ := cmdutil.NewTest(nil, nil)
		if code := cli.Execute(f, c.args); code != c.code {
			t.Errorf("%v: exit %d, want %d\n%s", c.args, code, c.code, out.String())
		}
		if c.json {
			var v map[string]any
			if err := json.Unmarshal([]byte(out.String()), &v); err != nil || v["schema"] != float64(1) {
				t.Errorf("%v: not a schema-1 JSON document: %v\n%s", c.args, err, out.String())
			}
		}
	}
}
