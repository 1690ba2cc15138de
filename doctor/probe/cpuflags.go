package probe

import (
	"slices"

	"golang.org/x/sys/cpu"
)

// nativeCPUFlags are the flags of cpuFlagsThatMatter this process's CPU has,
// read with CPUID (golang.org/x/sys/cpu), in /proc/cpuinfo's spelling.
// gopsutil returns no flags on Windows, so without these the AVX2 check
// never fired there.
func nativeCPUFlags() []string {
	var out []string
	add := func(has bool, name string) {
		if has {
			out = append(out, name)
		}
	}
	x := cpu.X86
	add(x.HasAVX, "avx")
	add(x.HasAVX2, "avx2")
	add(x.HasAVX512F, "avx512f")
	add(x.HasAVX512BW, "avx512bw")
	add(x.HasAVX512VL, "avx512vl")
	add(x.HasAVX512VNNI, "avx512_vnni")
	add(x.HasAVX512BF16, "avx512_bf16")
	add(x.HasAVXVNNI, "avx_vnni")
	add(x.HasF16C, "f16c")
	add(x.HasFMA, "fma")
	add(x.HasSSE3, "sse3")
	add(x.HasSSSE3, "ssse3")
	add(x.HasSSE41, "sse4_1")
	add(x.HasSSE42, "sse4_2")
	add(x.HasAMXTile, "amx_tile")
	add(x.HasAMXInt8, "amx_int8")
	add(x.HasAMXBF16, "amx_bf16")
	a := cpu.ARM64
	add(a.HasASIMD, "asimd")
	add(a.HasSVE, "sve")
	add(a.HasASIMDDP, "asimddp")
	add(a.HasI8MM, "i8mm")
	return out
}

// mergeCPUFlags adds to flags (gopsutil's) the native ones it lacks.
func mergeCPUFlags(flags, native []string) []string {
	for _, f := range native {
		if !slices.Contains(flags, f) {
			flags = append(flags, f)
		}
	}
	return flags
}
