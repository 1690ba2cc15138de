package failures

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// genLog is a reader that produces size bytes of a plausible build log
// without holding it: Ninja compile lines, warnings, and one real failure
// near the end.
type genLog struct {
	size, done int64
	n          int
	pending    []byte
	tail       bool
}

var genLines = []string{
	"[%d/9000] Building CUDA object ggml/src/ggml-cuda/CMakeFiles/ggml-cuda.dir/template-instances/fattn-vec-instance-%d.cu.o",
	"/home/dev/llama.cpp/ggml/src/ggml-cuda/mmq.cuh(%d): warning #177-D: variable \"tmp\" was declared but never referenced",
	"/usr/bin/nvcc -forward-unknown-to-host-compiler -DGGML_CUDA_FA_ALL_QUANTS=%d -O3 -DNDEBUG --generate-code=arch=compute_89,code=[sm_89] -x cu -c x.cu",
	"-- Performing Test HAVE_THING_%d - Success",
}

func (g *genLog) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(g.pending) == 0 {
			if g.done >= g.size {
				if g.tail {
					return n, io.EOF
				}
				g.tail = true
				g.pending = []byte("nvcc fatal   : Unsupported gpu architecture 'compute_120'\n")
			} else {
				g.n++
				g.pending = []byte(fmt.Sprintf(genLines[g.n%len(genLines)], g.n, g.n) + "\n")
			}
		}
		c := copy(p[n:], g.pending)
		g.pending = g.pending[c:]
		n += c
		g.done += int64(c)
	}
	return n, nil
}

// peakHeap samples the heap while f runs.
func peakHeap(f func()) uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	wg.Wait()
	return peak.Load()
}

// TestLargeLogStreams reads logs that are never held in memory (8 and 48
// MiB) and checks that the heap the log adds stays far below its size and
// does not grow with it: a reader that held the log would add about its size.
func TestLargeLogStreams(t *testing.T) {
	const small, large = 8 << 20, 48 << 20
	// The knowledge base (compiled patterns) is loaded first: what is
	// measured is the heap the log adds above it. That is not zero (the
	// matcher's per-log state and the regexp engines' caches, about 9 to
	// 12 MiB whatever the log's size), so it is compared across sizes.
	kb := Default()
	// Other tests of the package may allocate at the same time, so a
	// growth over the bound is taken again, up to three times, and the
	// least counts.
	growth := func(size int64) uint64 {
		grown := ^uint64(0)
		for attempt := 0; attempt < 3; attempt++ {
			runtime.GC()
			var base runtime.MemStats
			runtime.ReadMemStats(&base)
			var d Diagnosis
			peak := peakHeap(func() {
				var err error
				d, err = kb.Diagnose(&genLog{size: size})
				if err != nil {
					t.Error(err)
				}
			})
			if len(d.Findings) != 1 || d.Findings[0].ID != "nvcc-arch-too-new" {
				t.Fatalf("%+v", d.Findings)
			}
			g := uint64(0)
			if peak > base.HeapInuse {
				g = peak - base.HeapInuse
			}
			grown = min(grown, g)
			if grown <= large/3 {
				break
			}
		}
		return grown
	}
	gs, gl := growth(small), growth(large)
	switch {
	case raceEnabled:
		t.Logf("heap growth %d and %d MiB not checked under -race", gs>>20, gl>>20)
	case gl > large/3:
		t.Errorf("heap grew by %d MiB at least (three tries) for a %d MiB log: not streaming", gl>>20, large>>20)
	case gl > gs+(large-small)/4:
		t.Errorf("heap growth follows the log's size: %d MiB for %d MiB, %d MiB for %d MiB", gs>>20, small>>20, gl>>20, large>>20)
	}
}

// BenchmarkDiagnose200MB measures throughput and peak heap on a generated
// 200 MB log (go test -bench Diagnose200MB -run X ./failures).
func BenchmarkDiagnose200MB(b *testing.B) {
	const size = 200 << 20
	kb := Default()
	b.SetBytes(size)
	var peak uint64
	for i := 0; i < b.N; i++ {
		p := peakHeap(func() {
			if _, err := kb.Diagnose(&genLog{size: size}); err != nil {
				b.Fatal(err)
			}
		})
		if p > peak {
			peak = p
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}

func BenchmarkNormalize(b *testing.B) {
	line := `  C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.2\include\crt/host_config.h(164): fatal error C1189: #error:  -- unsupported Microsoft [C:\b\x.vcxproj]`
	for i := 0; i < b.N; i++ {
		Normalize(line)
	}
}
