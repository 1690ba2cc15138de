package runcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/runner/engine"
	"github.com/llamactl/llamactl/runner/gguf"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
	"github.com/llamactl/llamactl/runner/plan"
)

// BenchmarkChosenVsSweep measures, with llama-bench on the CPU engine,
// the generation speed of the threads/ubatch the planner chooses against a
// small sweep, and reports chosen/best (goal ≥ 0.95; docs/run.md):
//
//	go test ./runner/runcmd -run XXX -bench ChosenVsSweep -benchtime 1x
func BenchmarkChosenVsSweep(b *testing.B) {
	dir := engineDirB(b)
	model := filepath.Join(b.TempDir(), "bench-q8.gguf")
	f, err := ggufwrite.Model(ggufwrite.Config{Arch: "llama", Embd: 1024, Heads: 16, HeadsKV: 4, FF: 2816, Layers: 8, Type: "Q8_0", Vocab: 8000})
	if err != nil {
		b.Fatal(err)
	}
	if err := f.WriteFile(model); err != nil {
		b.Fatal(err)
	}
	gf, err := gguf.Open(model)
	if err != nil {
		b.Fatal(err)
	}
	m, _ := gf.Model()
	host, err := SystemHost(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	res, err := plan.Make(&m, nil, host, plan.Request{NGL: -1}, engine.Caps{FlashAttn: true, CacheTypes: true})
	if err != nil {
		b.Fatal(err)
	}
	threads := []string{}
	for t := 1; t <= max(runtime.NumCPU(), host.LogicalCores); t++ {
		threads = append(threads, strconv.Itoa(t))
	}
	ubs := []string{"128", "256", "512"}
	for b.Loop() {
		r, err := proc.Exec{}.Run(context.Background(), proc.Cmd{Name: filepath.Join(dir, "llama-bench"), Timeout: 5 * time.Minute,
			Args: []string{"-m", model, "-t", strings.Join(threads, ","), "-ub", strings.Join(ubs, ","), "-fa", "1", "-p", "128", "-n", "64", "-r", "5", "-o", "json"}})
		if err != nil || r.ExitCode != 0 {
			b.Fatalf("llama-bench: %v (exit %d) %s", err, r.ExitCode, r.Stderr)
		}
		var rows []struct {
			Threads int     `json:"n_threads"`
			UBatch  int     `json:"n_ubatch"`
			Prompt  int     `json:"n_prompt"`
			Gen     int     `json:"n_gen"`
			TS      float64 `json:"avg_ts"`
		}
		if err := json.Unmarshal(r.Stdout, &rows); err != nil {
			b.Fatal(err)
		}
		// -ub does not change generation (one token per step), so tg is
		// averaged over the ub rows of each thread count: less noise.
		tgSum, tgN := map[int]float64{}, map[int]float64{}
		var bestPP, chosenPP float64
		for _, row := range rows {
			b.Logf("t=%d ub=%d pp=%d tg=%d: %.1f t/s", row.Threads, row.UBatch, row.Prompt, row.Gen, row.TS)
			if row.Gen > 0 {
				tgSum[row.Threads] += row.TS
				tgN[row.Threads]++
			} else {
				// Prompt processing runs with -tb (all logical cores).
				bestPP = max(bestPP, row.TS)
				if row.Threads == res.Plan.ThreadsBatch && row.UBatch == res.Plan.UBatch {
					chosenPP = row.TS
				}
			}
		}
		var bestTG, chosenTG float64
		for t, sum := range tgSum {
			bestTG = max(bestTG, sum/tgN[t])
		}
		if n := tgN[res.Plan.Threads]; n > 0 {
			chosenTG = tgSum[res.Plan.Threads] / n
		}
		if chosenTG == 0 {
			b.Fatalf("the chosen -t %d -ub %d is not in the sweep", res.Plan.Threads, res.Plan.UBatch)
		}
		b.ReportMetric(chosenTG/bestTG, "tg_chosen/best")
		b.ReportMetric(chosenPP/bestPP, "pp_chosen/best")
		b.ReportMetric(chosenTG, "tg_t/s")
		fmt.Printf("chosen -t %d -tb %d -ub %d: tg %.1f t/s (best %.1f), pp %.1f t/s (best %.1f)\n", res.Plan.Threads, res.Plan.ThreadsBatch, res.Plan.UBatch, chosenTG, bestTG, chosenPP, bestPP)
	}
}

func engineDirB(b *testing.B) string { return testutil.EngineDir(b, "llama-bench") }
