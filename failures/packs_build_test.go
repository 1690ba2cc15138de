package failures

import "testing"

// TestBuildPackPrecision: the two failures.json signatures the build pack
// had to narrow. GNU ld's warning that libcuda.so.1 is absent at link time
// is the driver library missing where the build runs (probably
// cuda-driver-lib-link), not a runtime without a GPU (cuda-no-device); and
// lld's link-time "undefined symbol: cuMemCreate" states the missing
// -lcuda (probable, like every pack signature no real log has confirmed
// yet: TestPackCertainConfirmed).
func TestBuildPackPrecision(t *testing.T) {
	kb := Default()
	for _, c := range []struct {
		log, want, not string
		certain        bool
	}{
		{"/usr/bin/ld: warning: libcuda.so.1, needed by bin/libggml-cuda.so, not found (try using -rpath or -rpath-link)", "cuda-driver-lib-link", "cuda-no-device", false},
		{"ld.lld: error: undefined symbol: cuMemCreate\n>>> referenced by ggml-cuda.cu", "cuda-driver-lib-link", "", false},
		{"OSError: /opt/llama/libggml-cuda.so: undefined symbol: cuMemCreate", "cuda-driver-lib-link", "", false},
		{"libcuda.so.1: cannot open shared object file: No such file or directory", "cuda-no-device", "cuda-driver-lib-link", true},
	} {
		d := kb.DiagnoseString(c.log)
		f, ok := named(d, c.want)
		if !ok {
			t.Errorf("%q does not name %s: %+v", c.log, c.want, d.Findings)
			continue
		}
		if (f.Confidence == ConfidenceCertain) != c.certain {
			t.Errorf("%q names %s as %s, want certain=%v", c.log, c.want, f.Confidence, c.certain)
		}
		if c.not != "" {
			if _, bad := named(d, c.not); bad {
				t.Errorf("%q names %s too", c.log, c.not)
			}
		}
	}
}
