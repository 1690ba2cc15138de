package doctor

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/llamactl/llamactl/doctor/snapshot"
	"github.com/llamactl/llamactl/matrix"
)

// The per-toolkit facts are the matrix's: no copy in gates.json to drift.
func TestToolkitFactsComeFromTheMatrix(t *testing.T) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(gatesJSON, &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["toolkits"]; ok {
		t.Error("gates.json has its own toolkit table again; the matrix is the source")
	}
	m := matrix.Default()
	if len(g().Toolkits) != len(m.Minors()) {
		t.Errorf("%d rows for %d matrix minors", len(g().Toolkits), len(m.Minors()))
	}
	for _, mv := range m.Minors() {
		tf, _ := m.Toolkit(mv)
		row, ok := toolkitFacts(mv)
		if !ok || !slices.Equal(row.SM, tf.SM) {
			t.Errorf("%s: sm %v, matrix %v", mv, row.SM, tf.SM)
		}
		if n, _, ok := m.GCCMaxMajor(tf); ok && row.GCCMax != n {
			t.Errorf("%s: gcc max %d, matrix %d", mv, row.GCCMax, n)
		}
	}
	// The removed copy said gcc 10 for CUDA 11.5; host_config.h of 11.5
	// accepts gcc 11 (Ubuntu 22.04's own nvcc 11.5 builds with its gcc 11).
	if row, _ := toolkitFacts("11.5.119"); row.GCCMax != 11 {
		t.Errorf("CUDA 11.5 gcc max = %d, want 11", row.GCCMax)
	}
	s := &snapshot.Snapshot{OS: snapshot.OSInfo{GOOS: "linux"},
		Tools:     map[string][]snapshot.ToolHit{"nvcc": {{Path: "/usr/bin/nvcc"}}},
		Toolkits:  []snapshot.CUDAToolkit{{Version: "11.5.119", Root: "/usr/lib/nvidia-cuda-toolkit", NVCC: "/usr/bin/nvcc", Found: []string{"debian", "PATH"}}},
		Compilers: []snapshot.Compiler{{Kind: "g++", Path: "/usr/bin/g++", Version: "11.4.0", Major: 11}}}
	if fs := checkHostCompiler(s); len(fs) != 1 || fs[0].Message != "cuda.host-compiler/ok" {
		t.Errorf("nvcc 11.5 with g++ 11: %+v", fs)
	}
	lo, hi := cudaRangeFor("8.9")
	first, _, _ := m.TargetRange("8.9")
	if lo != first || lo != "11.8" || hi == "" || cmpVer(hi, "13.3") < 0 {
		t.Errorf("cudaRangeFor(8.9) = %s..%s", lo, hi)
	}
}
