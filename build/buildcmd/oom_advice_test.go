package buildcmd

import (
	"strings"
	"testing"

	"github.com/llamactl/llamactl/build"
	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/machine"
)

// What a failed build that ran out of memory says about the next command:
// without --heal the exact -j and `llamactl build --heal`; with --heal
// after its retries the next -j; at -j 1 that fewer jobs cannot help. In
// English and Chinese.
func TestOutOfMemoryAdvice(t *testing.T) {
	fix := plan.Fix{ID: "fewer-jobs", Trigger: plan.OOMFailure, Option: "-j 16", Change: "-j 16 -> -j 8"}
	for _, c := range []struct {
		name   string
		r      *build.Result
		en, zh []string
	}{
		{"without --heal", &build.Result{Plan: plan.Plan{Jobs: 16}, WouldHeal: []plan.Fix{fix}},
			[]string{"-j 8", "llamactl build --heal", "-j 16 -> -j 8"}, []string{"-j 8", "llamactl build --heal", "并行任务"}},
		{"without --heal at -j 1", &build.Result{Plan: plan.Plan{Jobs: 1}},
			[]string{"-j 1", "more memory"}, []string{"-j 1", "更多内存"}},
		{"--heal, still out of memory at -j 4", &build.Result{Heal: true, Plan: plan.Plan{Jobs: 4}, Fixes: []plan.Fix{fix}},
			[]string{"-j 4", "-j 2"}, []string{"-j 4", "-j 2", "内存不足"}},
		{"--heal at -j 1", &build.Result{Heal: true, Plan: plan.Plan{Jobs: 1}, Fixes: []plan.Fix{fix}},
			[]string{"fewer jobs cannot help"}, []string{"减少并行任务已无帮助"}},
	} {
		for _, l := range []string{lang.EN, lang.ZhCN} {
			got := strings.Join(healAdvice(texts(l), c.r, plan.OOMFailure), "\n")
			want := c.en
			if l == lang.ZhCN {
				want = c.zh
			}
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("%s (%s): advice lacks %q: %s", c.name, l, w, got)
				}
			}
			if strings.Contains(got, "drop or correct") || strings.Contains(got, "already in this build") {
				t.Errorf("%s (%s): generic advice: %s", c.name, l, got)
			}
		}
	}
}

// A build healed by fewer jobs prints the fix's notice with its attempt,
// and never calls it a patch.
func TestFewerJobsPrintedAsFix(t *testing.T) {
	in := plan.Input{Snapshot: &machine.Snapshot{OS: machine.OSInfo{GOOS: "linux", LogicalCores: 16}}, Backend: "cpu",
		SourceDir: "/src", BuildDir: "/b", Heal: true, Symptoms: []string{plan.OOMFailure}}
	p, err := plan.Make(in)
	if err != nil || len(p.Fixes) != 1 {
		t.Fatalf("plan: %v, fixes %+v", err, p.Fixes)
	}
	fx := p.Fixes[0]
	fx.Attempt = 1
	f, out, _ := cmdutil.NewTest(nil, nil)
	printText(f, &Options{F: f}, &Doc{Result: &build.Result{Heal: true, Plan: p, Fixes: []plan.Fix{fx}, Healed: []string{fx.ID}, Attempts: 2}})
	got := out.String()
	for _, want := range []string{"--heal: the compilers ran out of memory with -j 16", "-j 16 -> -j 8", "after attempt 1 failed (compiler-out-of-memory)"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "patch fewer-jobs") {
		t.Errorf("fewer-jobs printed as a patch:\n%s", got)
	}
}
