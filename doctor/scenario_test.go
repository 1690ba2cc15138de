package doctor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/machine"
)

// A scenario is a snapshot built from real recorded outputs (its "raw"
// field holds them verbatim, "sources" names the recorded fixtures and their public origin) and
// what doctor must conclude about it.
type scenario struct {
	Description string           `json:"description"`
	Sources     []string         `json:"sources"`
	Backend     string           `json:"backend"`
	Expect      scenarioExpect   `json:"expect"`
	Snapshot    machine.Snapshot `json:"snapshot"`
}

type scenarioExpect struct {
	Errors    []string          `json:"errors"`   // exactly these error messages
	Warnings  []string          `json:"warnings"` // at least these warnings
	OK        []string          `json:"ok"`       // at least these ok findings
	Selection map[string]string `json:"selection"`
}

const scenarioDir = "../testdata/doctor/snapshots"

func loadScenarios(t testing.TB) map[string]scenario {
	files, err := filepath.Glob(filepath.Join(scenarioDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios in %s: %v", scenarioDir, err)
	}
	out := map[string]scenario{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var sc scenario
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&sc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = sc
	}
	return out
}

func TestScenarios(t *testing.T) {
	scs := loadScenarios(t)
	if len(scs) < 20 {
		t.Errorf("only %d scenarios; the issue asks for at least 20", len(scs))
	}
	for name, sc := range scs {
		t.Run(name, func(t *testing.T) {
			s := sc.Snapshot
			fs := Run(context.Background(), &s, Options{Backend: sc.Backend})
			by := map[Status][]string{}
			for _, f := range fs {
				by[f.Status] = append(by[f.Status], f.Message)
				if strings.HasPrefix(f.Summary, "internal") || strings.Contains(f.Summary, "{") {
					t.Errorf("%s: unfilled text: %s", f.Message, f.Summary)
				}
				if f.Fix != nil {
					for _, c := range f.Fix.Commands {
						if strings.Contains(c, "{") && !strings.Contains(c, "$_") && !strings.Contains(c, "${env") {
							t.Errorf("%s: unfilled command: %s", f.Message, c)
						}
					}
				}
			}
			errs := append([]string{}, by[Error]...)
			sort.Strings(errs)
			want := append([]string{}, sc.Expect.Errors...)
			sort.Strings(want)
			if !slices.Equal(errs, want) {
				t.Errorf("errors:\n got  %v\n want %v", errs, want)
				for _, f := range fs {
					if f.Status == Error {
						t.Logf("  %s: %s", f.Message, f.Summary)
					}
				}
			}
			for _, w := range sc.Expect.Warnings {
				if !slices.Contains(by[Warn], w) {
					t.Errorf("missing warning %s (warnings: %v)", w, by[Warn])
				}
			}
			for _, w := range sc.Expect.OK {
				if !slices.Contains(by[OK], w) {
					t.Errorf("missing ok %s (ok: %v)", w, by[OK])
				}
			}
			sel := SelectFor(&s, sc.Backend)
			b, _ := json.Marshal(sel)
			var got map[string]any
			_ = json.Unmarshal(b, &got)
			for k, v := range sc.Expect.Selection {
				if g, _ := got[k].(string); g != v {
					t.Errorf("selection.%s = %q, want %q (reasons %v)", k, g, v, sel.Reasons)
				}
			}
			if HasErrors(fs) != (len(sc.Expect.Errors) > 0) {
				t.Errorf("HasErrors = %v", HasErrors(fs))
			}
		})
	}
}

// The scenario facts agree with the real outputs they were taken from, read
// back with the gather engineer's parsers.
func TestScenarioFactsMatchRecordedOutputs(t *testing.T) {
	for name, sc := range loadScenarios(t) {
		s := sc.Snapshot
		if len(sc.Sources) == 0 || sc.Description == "" {
			t.Errorf("%s: no sources/description", name)
		}
		for k, raw := range s.Raw {
			switch {
			case strings.HasSuffix(k, "nvcc --version"):
				v := probe.ParseNvccVersion(raw)
				found := false
				for _, tk := range s.Toolkits {
					found = found || tk.Version == v
				}
				if v == "" || !found {
					t.Errorf("%s: %q says %q, no toolkit has that version", name, k, v)
				}
			case k == "cl":
				b := probe.ParseClBanner(raw)
				if len(s.MSVC) == 0 || b.Version != s.MSVC[0].ClVersion {
					t.Errorf("%s: cl banner says %q, snapshot %+v", name, b.Version, s.MSVC)
				}
			case k == "nvidia-smi":
				h := probe.ParseSMITable(raw)
				if h.Driver != "" && h.Driver != s.NVIDIA.SMIDriverVersion && h.Driver != s.NVIDIA.DriverVersion {
					t.Errorf("%s: nvidia-smi says driver %q, snapshot %q", name, h.Driver, s.NVIDIA.DriverVersion)
				}
				if h.CUDA != "" && h.CUDA != "ERR!" && h.CUDA != s.NVIDIA.CUDADriverAPI {
					t.Errorf("%s: nvidia-smi says CUDA %q, snapshot %q", name, h.CUDA, s.NVIDIA.CUDADriverAPI)
				}
			case k == "clinfo":
				ps := probe.ParseClinfo(raw)
				for _, p := range s.OpenCL.Platforms {
					ok := false
					for _, q := range ps {
						ok = ok || q.Name == p.Name
					}
					if !ok {
						t.Errorf("%s: platform %q not in the recorded clinfo (%d platforms)", name, p.Name, len(ps))
					}
				}
			case k == "vulkaninfo --summary":
				ds := probe.ParseVulkanSummary(raw)
				for _, d := range s.Vulkan.Devices {
					ok := false
					for _, q := range ds {
						ok = ok || q.Name == d.Name
					}
					if !ok {
						t.Errorf("%s: Vulkan device %q not in the recorded output", name, d.Name)
					}
				}
			}
		}
	}
}

// Replaying a snapshot after a JSON round trip (what --snapshot then
// --replay does, on any OS) gives the same findings.
func TestReplayRoundTripSameFindings(t *testing.T) {
	strip := func(fs []Finding) []Finding {
		for i := range fs {
			fs[i].Duration = 0
		}
		return fs
	}
	for name, sc := range loadScenarios(t) {
		s := sc.Snapshot
		a := strip(Run(context.Background(), &s, Options{Backend: sc.Backend}))
		b, _ := json.Marshal(&s)
		var s2 machine.Snapshot
		if err := json.Unmarshal(b, &s2); err != nil {
			t.Fatal(err)
		}
		c := strip(Run(context.Background(), &s2, Options{Backend: sc.Backend}))
		if !reflect.DeepEqual(a, c) {
			t.Errorf("%s: findings differ after a JSON round trip", name)
		}
	}
}

// TestOneCUDAVersionPerDiagnosis: every finding that tells the user which
// CUDA to install names the same version as the selection, so two lines of
// one report never disagree (winget --version 12.9 vs 12.9.1).
func TestOneCUDAVersionPerDiagnosis(t *testing.T) {
	for name, sc := range loadScenarios(t) {
		s := sc.Snapshot
		sel := SelectFor(&s, sc.Backend)
		if sel.CUDA == "" {
			continue
		}
		for _, f := range Run(context.Background(), &s, Options{Backend: sc.Backend}) {
			if f.Fix == nil {
				continue
			}
			for _, c := range f.Fix.Commands {
				if _, v, ok := strings.Cut(c, "Nvidia.CUDA --version "); ok && strings.Fields(v)[0] != sel.CUDA {
					t.Errorf("%s: %s says %q, the selection says CUDA %s", name, f.Message, c, sel.CUDA)
				}
			}
		}
	}
}
