package doctor

import (
	"context"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/machine"
)

// Every catalog entry has a rule and every rule a catalog entry.
func TestCatalogMatchesRules(t *testing.T) {
	fs := funcs(Options{})
	seen := map[string]bool{}
	for _, c := range Catalog() {
		if seen[c.ID] {
			t.Errorf("duplicate check id %s", c.ID)
		}
		seen[c.ID] = true
		if _, ok := fs[c.ID]; !ok {
			t.Errorf("check %s has no rule", c.ID)
		}
		if c.Title == "" || c.Help == "" || c.Source == "" || len(c.Platforms) == 0 {
			t.Errorf("check %s lacks title/help/source/platforms", c.ID)
		}
		if !strings.Contains("ABCDEFGI", c.Section) || c.Section == "" {
			t.Errorf("check %s: section %q not in A-G, I", c.ID, c.Section)
		}
		for k, m := range c.Messages {
			switch m.Status {
			case OK, Warn, Error:
			default:
				t.Errorf("%s/%s: bad status %q", c.ID, k, m.Status)
			}
			if (m.Status == Warn || m.Status == Error) && m.Fix == "" {
				t.Errorf("%s/%s: a problem without fix text", c.ID, k)
			}
		}
	}
	for id := range fs {
		if !seen[id] {
			t.Errorf("rule %s is not in the catalog", id)
		}
	}
}

// Every message key the source emits exists in checks.json, and every
// message in checks.json is emitted somewhere (no dead text to translate).
func TestEveryMessageExists(t *testing.T) {
	files, _ := os.ReadDir(".")
	emitRe := regexp.MustCompile(`emit\(s, "([^"]+)", "([^"]+)"`)
	emitIDRe := regexp.MustCompile(`emit\(s, id, "([^"]+)"`)
	skipRe := regexp.MustCompile(`skip\((?:"[^"]+"|id), "([^"]+)"`)
	reasonRe := regexp.MustCompile(`reason(?:Text)?\("([^"]+)"`)
	used := map[string]bool{}
	var src strings.Builder
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".go") || strings.HasSuffix(f.Name(), "_test.go") {
			continue
		}
		b, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	s := src.String()
	for _, m := range emitRe.FindAllStringSubmatch(s, -1) {
		if strings.HasSuffix(m[2], "-") {
			continue // built keys (ocl.llama-compat) are covered by scenarios
		}
		c, ok := Info(m[1])
		if !ok {
			t.Errorf("emit of unknown check %s", m[1])
			continue
		}
		if _, ok := c.Messages[m[2]]; !ok {
			t.Errorf("no text for %s/%s", m[1], m[2])
		}
		used[m[1]+"/"+m[2]] = true
	}
	for _, m := range emitIDRe.FindAllStringSubmatch(s, -1) {
		if _, ok := mustInfo(t, "msvc.cl-version").Messages[m[1]]; !ok {
			t.Errorf("no text for msvc.cl-version/%s", m[1])
		}
		used["msvc.cl-version/"+m[1]] = true
	}
	for _, m := range skipRe.FindAllStringSubmatch(s, -1) {
		if _, ok := catSkip[m[1]]; !ok {
			t.Errorf("no skip reason %q", m[1])
		}
	}
	for _, m := range reasonRe.FindAllStringSubmatch(s, -1) {
		if _, ok := catReasons[m[1]]; !ok {
			t.Errorf("no selection reason %q", m[1])
		}
	}
	for _, c := range Catalog() {
		for k := range c.Messages {
			if !used[c.ID+"/"+k] && !(c.ID == "ocl.llama-compat" && (strings.HasPrefix(k, "info-") || strings.HasPrefix(k, "requested-"))) {
				t.Errorf("text %s/%s is never emitted", c.ID, k)
			}
		}
	}
}

func mustInfo(t *testing.T, id string) CheckInfo {
	c, ok := Info(id)
	if !ok {
		t.Fatalf("no check %s", id)
	}
	return c
}

// An empty or corrupt-but-decodable snapshot gives findings, never a panic
// or an internal error.
func TestEmptySnapshot(t *testing.T) {
	for _, goos := range []string{"windows", "linux", ""} {
		fs := Run(context.Background(), &machine.Snapshot{OS: machine.OSInfo{GOOS: goos}}, Options{})
		if len(fs) < len(Catalog()) {
			t.Errorf("%s: %d findings for %d checks", goos, len(fs), len(Catalog()))
		}
		for _, f := range fs {
			if strings.HasPrefix(f.Summary, "internal") {
				t.Errorf("%s: %s: %s", goos, f.ID, f.Summary)
			}
		}
	}
	if fs := Run(context.Background(), nil, Options{}); len(fs) == 0 {
		t.Error("nil snapshot gave no findings")
	}
}

func TestOrderIsCatalogOrder(t *testing.T) {
	fs := Run(context.Background(), &machine.Snapshot{OS: machine.OSInfo{GOOS: "windows"}}, Options{})
	ids := CheckIDs()
	last := -1
	for _, f := range fs {
		i := slices.Index(ids, f.ID)
		if i < last {
			t.Fatalf("%s out of order", f.ID)
		}
		last = i
	}
}

func TestOnlyAndUnknownCheck(t *testing.T) {
	fs := Run(context.Background(), &machine.Snapshot{OS: machine.OSInfo{GOOS: "linux"}}, Options{Only: []string{"build.cmake"}})
	if len(fs) != 1 || fs[0].ID != "build.cmake" || fs[0].Status != Error {
		t.Fatalf("got %+v", fs)
	}
	if err := (Options{Only: []string{"nope"}}).Validate(); err == nil || !strings.Contains(err.Error(), "--list-checks") {
		t.Fatalf("unknown check: %v", err)
	}
}

// A rule that panics or loops becomes an error finding, not a dead doctor.
func TestCrashAndTimeoutBecomeFindings(t *testing.T) {
	s := &machine.Snapshot{}
	f := runOne(context.Background(), s, "x.crash", func(*machine.Snapshot) []Finding { panic("boom") }, DefaultCheckTimeout)
	if len(f) != 1 || f[0].Status != Error || !strings.Contains(f[0].Summary, "boom") {
		t.Fatalf("crash: %+v", f)
	}
	block := make(chan struct{})
	defer close(block)
	f = runOne(context.Background(), s, "x.hang", func(*machine.Snapshot) []Finding { <-block; return nil }, 20e6)
	if len(f) != 1 || f[0].Status != Error || f[0].Message != "meta/check-timeout" {
		t.Fatalf("hang: %+v", f)
	}
}

// The rules are pure: no file, process or OS access in package doctor
// (outside tests), so a replayed snapshot is judged the same on any OS.
func TestRulesArePure(t *testing.T) {
	files, _ := os.ReadDir(".")
	banned := map[string]bool{"os": true, "os/exec": true, "runtime": true, "path/filepath": true, "net": true, "net/http": true, "syscall": true}
	for _, f := range files {
		n := f.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), n, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); banned[p] {
				t.Errorf("%s imports %s: rules must read only the snapshot", n, p)
			}
		}
	}
}
