package kernels

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/llamactl/llamactl/internal/testutil/faketool"
	"github.com/llamactl/llamactl/kernels/opencl"
)

// childEnv makes this test binary act as `llamactl __probe opencl`, so the
// parent side is tested against the real child code path and ICD loader.
const childEnv = "LLAMACTL_KERNELS_TEST_CHILD"

func TestMain(m *testing.M) {
	faketool.Main()
	if os.Getenv(childEnv) == "opencl" {
		_ = json.NewEncoder(os.Stdout).Encode(opencl.Run())
		os.Exit(0)
	}
	os.Exit(m.Run())
}
