package doctor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/llamactl/llamactl/machine"
)

// Any input machine.Parse accepts runs through every check and the
// selection without a panic; what it refuses is a *machine.LoadError.
func FuzzEvaluate(f *testing.F) {
	for _, n := range []string{"linux-ci-debian-nvcc11.8-gcc12.json", "win-dll-conda-cudart-stray-ggml.json"} {
		b, err := os.ReadFile(filepath.Join(scenarioDir, n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"snapshot":{"os":{"goos":"windows"}}}`))
	f.Add([]byte(`{"os":{"goos":"linux"},"nvidia":{"cuda_driver_api":"ERR!","gpus":[{"name":"x","compute_capability":"99.9"}]}}`))
	f.Add([]byte("\xff\xfe"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := machine.Parse(b, "fuzz")
		if err != nil {
			var le *machine.LoadError
			if !errors.As(err, &le) {
				t.Fatalf("bad input must be a *machine.LoadError: %v", err)
			}
			return
		}
		_ = Run(context.Background(), s, Options{})
		_ = SelectFor(s, "")
	})
}
