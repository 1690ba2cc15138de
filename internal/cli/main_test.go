package cli

import (
	"os"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
)

// TestMain lets the test binary stand in for llamactl (LLAMACTL_TEST_AS_CLI=1)
// so the signal tests run the real command in a real process, and doctor's
// native child probes (`llamactl __probe nvml`) find a llamactl to start.
func TestMain(m *testing.M) {
	if os.Getenv("LLAMACTL_TEST_AS_CLI") == "1" || len(os.Args) >= 2 && os.Args[1] == "__probe" {
		os.Exit(Execute(cmdutil.New(), os.Args[1:]))
	}
	os.Exit(m.Run())
}
