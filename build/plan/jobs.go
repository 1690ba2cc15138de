package plan

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// How many compile jobs run at once. One job per logical core is what
// makes a 16 GB laptop with 16-32 threads run out of memory compiling
// llama.cpp's CUDA template instances, so without -j the plan caps the
// cores by the memory the snapshot says is available, with the per-job
// peak measured on the real tree (data/jobs.json). After an attempt the
// log shows ran out of memory (compiler-out-of-memory), --heal halves the
// jobs, the user's -j included, once per such attempt.

// OOMFailure is the knowledge base's failure ID of a compiler that ran out
// of memory or was killed for it.
const OOMFailure = "compiler-out-of-memory"

//go:embed data/jobs.json
var jobsJSON []byte

// JobsData is the per-job memory peak table (data/jobs.json).
type JobsData struct {
	// PerJobMiB is the peak of one compile job in a build of a backend:
	// the largest measured compile that backend's build runs; "default"
	// for backends not listed.
	PerJobMiB map[string]uint64 `json:"per_job_mib"`
	// How is how every figure was measured.
	How string `json:"how"`
	// Measured are the compiles measured.
	Measured []JobMeasure `json:"measured"`
}

// JobMeasure is one measured compile.
type JobMeasure struct {
	File     string `json:"file"`
	Compiler string `json:"compiler"`
	// In are the backends whose builds compile this file ("all": every one).
	In      []string `json:"in"`
	PeakMiB uint64   `json:"peak_mib"`
	Seconds int      `json:"seconds"`
}

var (
	jobsOnce sync.Once
	jobsData JobsData
)

// JobsTable returns the embedded per-job memory table.
func JobsTable() JobsData {
	jobsOnce.Do(func() {
		if err := json.Unmarshal(jobsJSON, &jobsData); err != nil {
			panic(fmt.Sprintf("build/plan: embedded jobs.json: %v", err))
		}
	})
	return jobsData
}

// PerJob is the measured peak of one compile job for a backend, in MiB.
func (d JobsData) PerJob(backend string) uint64 {
	if v, ok := d.PerJobMiB[backend]; ok {
		return v
	}
	return d.PerJobMiB["default"]
}

// JobsBasis says where the plan's job count came from.
type JobsBasis struct {
	// From is "user" (-j N), "cores" (one per logical core) or "memory"
	// (the cores capped by the available memory).
	From string `json:"from"`
	// Cores is the snapshot's logical cores (1 when unknown).
	Cores int `json:"logical_cores"`
	// AvailableMiB is the memory the snapshot says is available (doctor's
	// os.ram_available_mib, lowered to a cgroup limit); 0 when unknown.
	AvailableMiB uint64 `json:"available_mib,omitempty"`
	// PerJobMiB is the measured peak of one compile job for this backend.
	PerJobMiB uint64 `json:"per_job_mib"`
	// MemoryJobs is floor(AvailableMiB / PerJobMiB), at least 1; 0 when
	// the available memory is unknown.
	MemoryJobs int `json:"memory_jobs,omitempty"`
	// Before is the job count before --heal lowered it (0: not lowered).
	Before int `json:"before_heal,omitempty"`
}

// OOMAttempts counts the failed attempts whose log showed the compiler
// running out of memory (each attempt's diagnoses are added to Symptoms).
func OOMAttempts(symptoms []string) int {
	n := 0
	for _, s := range symptoms {
		if s == OOMFailure {
			n++
		}
	}
	return n
}

// jobs decides the job count, before the heal rules run.
func (pl *planner) jobs() {
	in := pl.in
	cores := max(1, in.Snapshot.OS.LogicalCores)
	b := JobsBasis{Cores: cores, AvailableMiB: in.Snapshot.OS.RAMFreeMiB, PerJobMiB: JobsTable().PerJob(pl.p.Backend)}
	if b.AvailableMiB > 0 && b.PerJobMiB > 0 {
		b.MemoryJobs = max(1, int(min(b.AvailableMiB/b.PerJobMiB, uint64(1<<20))))
	}
	jobs := cores
	switch {
	case in.Jobs > 0:
		b.From, jobs = "user", in.Jobs
		if b.MemoryJobs > 0 && jobs > b.MemoryJobs {
			pl.warn("jobs-above-memory", jobs, mib(b.AvailableMiB), fmt.Sprintf("%d MiB", b.PerJobMiB), b.MemoryJobs, b.MemoryJobs)
		}
	case b.MemoryJobs > 0 && b.MemoryJobs < cores:
		b.From, jobs = "memory", b.MemoryJobs
	default:
		b.From = "cores"
	}
	pl.p.Jobs = jobs
	pl.p.JobsBasis = &b
}

// fewerJobs halves the jobs once per attempt that ran out of memory.
func (pl *planner) fewerJobs() {
	n := OOMAttempts(pl.in.Symptoms)
	if n == 0 || !pl.in.Heal {
		return
	}
	before := pl.p.Jobs
	prev, jobs := before, before
	for range n {
		prev, jobs = jobs, max(1, jobs/2)
	}
	pl.p.Jobs = jobs
	if jobs != before {
		pl.p.JobsBasis.Before = before
	}
	if jobs == prev {
		return // one job already: fewer cannot help (the failure's fix says what can)
	}
	change := fmt.Sprintf("-j %d -> -j %d", prev, jobs)
	if pl.in.Jobs > 0 {
		// The user's -j, overridden with a notice that names it.
		opt := fmt.Sprintf("-j %d", pl.in.Jobs)
		pl.fix(Fix{ID: "fewer-jobs", Trigger: OOMFailure, Option: opt, Change: change,
			Text: message("heal-fewer-jobs-option", prev, opt, change, jobs).Text})
		return
	}
	pl.fix(Fix{ID: "fewer-jobs", Trigger: OOMFailure, Change: change,
		Text: message("heal-fewer-jobs", prev, change, jobs).Text})
}

// FewerJobsTo is the job count a fewer-jobs fix's Change ends with, or 0.
func FewerJobsTo(change string) int {
	i := strings.LastIndex(change, "-> -j ")
	if i < 0 {
		return 0
	}
	var n int
	if _, err := fmt.Sscanf(change[i+len("-> -j "):], "%d", &n); err != nil {
		return 0
	}
	return n
}

// jobsLine is the plan text's line about the job count.
func (p Plan) jobsLine(t *Translator) []string {
	b := p.JobsBasis
	if b == nil {
		return nil
	}
	var out []string
	jobs := p.Jobs
	if b.Before > 0 {
		jobs = b.Before
	}
	switch {
	case b.From == "user":
		out = append(out, t.T("text-jobs-user", jobs))
	case b.From == "memory":
		out = append(out, t.T("text-jobs-memory", jobs, b.Cores, mib(b.AvailableMiB), fmt.Sprintf("%d MiB", b.PerJobMiB)))
	case b.AvailableMiB == 0:
		out = append(out, t.T("text-jobs-cores-unknown", jobs))
	default:
		out = append(out, t.T("text-jobs-cores", jobs, mib(b.AvailableMiB), fmt.Sprintf("%d MiB", b.PerJobMiB)))
	}
	if b.Before > 0 {
		out = append(out, t.T("text-jobs-healed", p.Jobs))
	}
	return out
}

// mib prints a MiB figure as GiB with one decimal.
func mib(v uint64) string { return fmt.Sprintf("%.1f GiB", float64(v)/1024) }
