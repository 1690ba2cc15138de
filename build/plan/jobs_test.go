package plan

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// jobsInput is the Debian nvcc 11.8 machine as a 16 GB laptop with 16
// logical cores: mem MiB available, the user's -j.
func jobsInput(t *testing.T, backend string, cores int, mem uint64, j int) Input {
	t.Helper()
	in := healInput(t)
	in.Backend = backend
	in.Snapshot.OS.LogicalCores = cores
	in.Snapshot.OS.RAMFreeMiB = mem
	in.Jobs = j
	return in
}

func buildJobs(t *testing.T, p Plan) string {
	t.Helper()
	i := slices.Index(p.Build.Args, "-j")
	if i < 0 || i+1 >= len(p.Build.Args) {
		t.Fatalf("no -j in %v", p.Build.Args)
	}
	return p.Build.Args[i+1]
}

func noteIDs(ns []Note) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.ID)
	}
	return out
}

func TestJobsCappedByMemory(t *testing.T) {
	cuda, cpu := JobsTable().PerJob("cuda"), JobsTable().PerJob("cpu")
	if cuda < 400 || cpu == 0 || cuda < cpu || JobsTable().PerJob("vulkan") < 1024 {
		t.Fatalf("per-job peaks: cuda %d MiB, cpu %d MiB", cuda, cpu)
	}
	for _, c := range []struct {
		name    string
		backend string
		cores   int
		mem     uint64
		j       int
		want    int
		from    string
		warn    bool
	}{
		{"16 GB laptop, 16 threads, 11 GiB available, CUDA", "cuda", 16, 11 * 1024, 0, 0, "", false},
		{"the same, CPU", "cpu", 16, 11 * 1024, 0, 0, "", false},
		{"16 threads, 6 GiB available, CUDA", "cuda", 16, 6 * 1024, 0, int(6 * 1024 / cuda), "memory", false},
		{"16 threads, 11 GiB available, Vulkan", "vulkan", 16, 11 * 1024, 0, int(11 * 1024 / JobsTable().PerJob("vulkan")), "memory", false},
		{"memory for every core", "cuda", 4, 64 * 1024, 0, 4, "cores", false},
		{"never above the cores", "cpu", 2, 1 << 30, 0, 2, "cores", false},
		{"never below one", "cuda", 32, cuda / 2, 0, 1, "memory", false},
		{"memory unknown (an old snapshot)", "cuda", 16, 0, 0, 16, "cores", false},
		{"cores unknown", "cpu", 0, 0, 0, 1, "cores", false},
		{"the user's -j wins, with a warning", "cuda", 16, 4 * cuda, 12, 12, "user", true},
		{"the user's -j that fits", "cuda", 16, 64 * 1024, 12, 12, "user", false},
		{"the user's -j above the cores", "cpu", 2, 64 * 1024, 8, 8, "user", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.from == "" {
				c.want, c.from = capped(c.cores, c.mem, JobsTable().PerJob(c.backend))
			}
			in := jobsInput(t, c.backend, c.cores, c.mem, c.j)
			if c.backend == "cpu" {
				in.Selection.Toolkit = nil
			}
			p := mustPlan(t, in)
			if p.Jobs != c.want || buildJobs(t, p) != itoa(c.want) {
				t.Errorf("jobs %d (build -j %s), want %d", p.Jobs, buildJobs(t, p), c.want)
			}
			if p.JobsBasis == nil || p.JobsBasis.From != c.from || p.JobsBasis.Cores != max(1, c.cores) {
				t.Errorf("basis %+v, want from %s", p.JobsBasis, c.from)
			}
			if got := slices.Contains(noteIDs(p.Warnings), "jobs-above-memory"); got != c.warn {
				t.Errorf("jobs-above-memory warning %v, want %v: %v", got, c.warn, p.Warnings)
			}
			// (This machine lacks Vulkan's build tools: blockers, but its jobs
			// are planned all the same.)
			if len(p.Fixes) != 0 || len(p.Blockers) != 0 && c.backend != "vulkan" {
				t.Errorf("fixes %+v blockers %v", p.Fixes, p.Blockers)
			}
			text := p.Text()
			if !strings.Contains(text, "Jobs: "+itoa(c.want)+" (") {
				t.Errorf("plan text lacks the jobs line:\n%s", text)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// capped is what the memory cap makes of cores with mem MiB available.
func capped(cores int, mem, perJob uint64) (int, string) {
	if fit := max(1, int(mem/perJob)); fit < cores {
		return fit, "memory"
	}
	return cores, "cores"
}

func TestHealFewerJobs(t *testing.T) {
	for _, c := range []struct {
		name     string
		cores    int
		mem      uint64
		j        int
		ooms     int
		heal     bool
		want     int
		change   string
		option   string
		noFix    bool
		textHave string
	}{
		{"no -j: the cores halved", 16, 0, 0, 1, true, 8, "-j 16 -> -j 8", "", false, "with -j 16"},
		{"a second out-of-memory attempt halves again", 16, 0, 0, 2, true, 4, "-j 8 -> -j 4", "", false, "with -j 8"},
		{"the user's -j is overridden with a notice", 16, 0, 6, 1, true, 3, "-j 6 -> -j 3", "-j 6", false, "overrode your -j 6"},
		{"the user's -j halved twice", 16, 0, 6, 2, true, 1, "-j 3 -> -j 1", "-j 6", false, "with -j 3; overrode your -j 6"},
		{"an odd count rounds down", 16, 0, 3, 1, true, 1, "-j 3 -> -j 1", "-j 3", false, "-j 1 yourself"},
		{"from the memory cap", 16, 0, 0, 1, true, 0, "", "", false, ""},
		{"one job: nothing fewer", 16, 0, 1, 1, true, 1, "", "", true, ""},
		{"never below one", 16, 0, 2, 3, true, 1, "", "", true, ""},
		{"without --heal the plan is unchanged", 16, 0, 0, 1, false, 16, "", "", true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := jobsInput(t, "cuda", c.cores, c.mem, c.j)
			if c.name == "from the memory cap" {
				in.Snapshot.OS.RAMFreeMiB = 10 * JobsTable().PerJob("cuda")
				c.want, c.change, c.textHave = 5, "-j 10 -> -j 5", "with -j 10"
			}
			in.Heal = c.heal
			for range c.ooms {
				in.Symptoms = append(in.Symptoms, OOMFailure)
			}
			p := mustPlan(t, in)
			if p.Jobs != c.want || buildJobs(t, p) != itoa(c.want) {
				t.Errorf("jobs %d (build -j %s), want %d", p.Jobs, buildJobs(t, p), c.want)
			}
			if len(p.Blockers) != 0 {
				t.Fatalf("blockers %v", p.Blockers)
			}
			if c.noFix {
				if len(p.Fixes) != 0 {
					t.Errorf("fixes %+v", p.Fixes)
				}
				return
			}
			f := onlyFix(t, p, "fewer-jobs")
			if f.Trigger != OOMFailure || f.Change != c.change || f.Option != c.option || FewerJobsTo(f.Change) != c.want {
				t.Errorf("fix %+v, want change %q option %q", f, c.change, c.option)
			}
			if !strings.Contains(f.Text, c.textHave) || !strings.Contains(f.Text, c.change) {
				t.Errorf("fix text lacks %q / %q: %s", c.textHave, c.change, f.Text)
			}
			if p.JobsBasis.Before == 0 || !strings.Contains(p.Text(), "by --heal") {
				t.Errorf("basis %+v; text:\n%s", p.JobsBasis, p.Text())
			}
			// Chinese, like the other fixes.
			if zh := NewTranslator("zh-CN").Line(f.Text); zh == f.Text || !strings.Contains(zh, c.change) {
				t.Errorf("zh-CN: %s", zh)
			}
		})
	}
}

func TestFewerJobsTo(t *testing.T) {
	for in, want := range map[string]int{"-j 16 -> -j 8": 8, "-j 2 -> -j 1": 1, "": 0, "-j 4": 0, "-> -j x": 0} {
		if got := FewerJobsTo(in); got != want {
			t.Errorf("FewerJobsTo(%q) = %d, want %d", in, got, want)
		}
	}
}

// Each backend's per-job figure is the largest measured compile its build
// runs, so the data cannot drift from its measurements.
func TestJobsDataIsItsMeasurements(t *testing.T) {
	d := JobsTable()
	if d.How == "" || len(d.Measured) == 0 || d.PerJobMiB["default"] == 0 {
		t.Fatalf("jobs.json: %+v", d)
	}
	for backend, got := range d.PerJobMiB {
		var want uint64
		for _, m := range d.Measured {
			if m.PeakMiB == 0 || m.File == "" || m.Compiler == "" {
				t.Errorf("measurement %+v", m)
			}
			if slices.Contains(m.In, "all") || slices.Contains(m.In, backend) {
				want = max(want, m.PeakMiB)
			}
		}
		if got != want {
			t.Errorf("per_job_mib.%s = %d, the largest measured compile of its build is %d", backend, got, want)
		}
	}
	for _, b := range Backends[1:] {
		if d.PerJob(b) == 0 {
			t.Errorf("no per-job figure for %s", b)
		}
	}
}
