package doctorcmd_test

import (
	"os"
	"testing"

	"github.com/llamactl/llamactl/internal/cli"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/testutil/faketool"
)

// TestMain lets the test binary stand in for llamactl when doctor starts its
// native child probes (`llamactl __probe nvml`), so the integration test
// runs the real command end to end.
func TestMain(m *testing.M) {
	faketool.Main()
	if len(os.Args) >= 2 && os.Args[1] == "__probe" {
		os.Exit(cli.Execute(cmdutil.New(), os.Args[1:]))
	}
	os.Exit(m.Run())
}
