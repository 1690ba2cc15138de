package probe

import (
	"context"
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sys/cpu"
)

// The host's CPU flags come from CPUID as well as from gopsutil, which
// gives none on Windows: on an AVX2 machine "avx2" is always there, so
// doctor's AVX2 check can fire on Windows too.
func TestHostInfoHasTheCPUsFlags(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the flags compared are x86's")
	}
	o, _ := gopsutilHost{diskDir: t.TempDir()}.Info(context.Background())
	want := map[string]bool{"avx": cpu.X86.HasAVX, "avx2": cpu.X86.HasAVX2, "fma": cpu.X86.HasFMA, "sse4_2": cpu.X86.HasSSE42, "avx512f": cpu.X86.HasAVX512F}
	for f, has := range want {
		if has && !slices.Contains(o.CPUFlags, f) {
			t.Errorf("CPUID says %s, the snapshot's flags do not: %v", f, o.CPUFlags)
		}
	}
	if !cpu.X86.HasSSE3 {
		t.Skip("a CPU without SSE3")
	}
	if len(o.CPUFlags) == 0 {
		t.Error("no CPU flags at all")
	}
}

func TestMergeCPUFlags(t *testing.T) {
	got := mergeCPUFlags([]string{"avx", "avx2"}, []string{"avx2", "fma"})
	if !slices.Equal(got, []string{"avx", "avx2", "fma"}) {
		t.Errorf("merge = %v", got)
	}
}
