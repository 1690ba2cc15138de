package failures

import (
	"fmt"
	"strings"

	"github.com/llamactl/llamactl/machine"
)

// conditions are the machine facts a derived finding depends on. They are
// code because they combine several snapshot fields; their names are used by
// the data file.
var conditions = map[string]func(s *machine.Snapshot) bool{
	// WSL2 with a libcuda outside /usr/lib/wsl/lib: a Linux driver inside WSL
	// shadows the Windows one.
	"wsl_foreign_libcuda": func(s *machine.Snapshot) bool {
		if !s.WSL.IsWSL {
			return false
		}
		for _, p := range s.WSL.LibcudaPaths {
			if !strings.HasPrefix(p, "/usr/lib/wsl/") {
				return true
			}
		}
		return false
	},
	// No NVIDIA driver and no NVIDIA GPU: "driver version is insufficient"
	// then means there is no CUDA device at all (lora-scripts#101).
	"no_nvidia_gpu": func(s *machine.Snapshot) bool {
		return s.NVIDIA.DriverVersion == "" && len(s.NVIDIA.GPUs) == 0
	},
}

// snapshotFact returns the value of a fact key read from a snapshot, or "".
func snapshotFact(key string, s *machine.Snapshot) string {
	switch key {
	case "nvcc":
		var vs []string
		for _, t := range s.Toolkits {
			vs = append(vs, t.Version)
		}
		return strings.Join(vs, ", ")
	case "nvcc_count":
		if len(s.Toolkits) > 1 {
			return fmt.Sprint(len(s.Toolkits))
		}
	case "msvc":
		var vs []string
		for _, m := range s.MSVC {
			if m.ClVersion != "" {
				vs = append(vs, m.ClVersion)
			}
		}
		return strings.Join(vs, ", ")
	case "gcc":
		var vs []string
		seen := map[string]bool{}
		for _, c := range s.Compilers {
			if (c.Kind == "gcc" || c.Kind == "g++") && c.Version != "" && !seen[c.Version] {
				seen[c.Version] = true
				vs = append(vs, c.Version)
			}
		}
		return strings.Join(vs, ", ")
	case "driver":
		return s.NVIDIA.DriverVersion
	case "cuda_driver_api":
		return s.NVIDIA.CUDADriverAPI
	case "gpu":
		var vs []string
		for _, g := range s.NVIDIA.GPUs {
			v := g.Name
			if g.ComputeCapability != "" {
				v += " (compute capability " + g.ComputeCapability + ")"
			}
			vs = append(vs, v)
		}
		return strings.Join(vs, ", ")
	case "wsl_libcuda":
		if s.WSL.IsWSL {
			return strings.Join(s.WSL.LibcudaPaths, ", ")
		}
	}
	return ""
}

// WithSnapshot adds what the machine's snapshot tells: facts that explain
// each finding ("your nvcc is 12.2 and your MSVC is 19.41") and findings
// derived from a matched one plus a machine fact (a foreign libcuda in WSL
// turns "no CUDA device" into its cause). s may be nil: only facts read from
// the log are added then.
func (kb *KB) WithSnapshot(d Diagnosis, s *machine.Snapshot) Diagnosis {
	out := d
	out.Findings = make([]Finding, 0, len(d.Findings))
	for _, f := range d.Findings {
		if s != nil {
			if derived, ok := kb.derive(f, s); ok {
				f = derived
			}
		}
		f.Facts = kb.facts4(f.ID, d.LogFacts, s)
		out.Findings = append(out.Findings, f)
	}
	return out
}

func (kb *KB) derive(f Finding, s *machine.Snapshot) (Finding, bool) {
	for _, e := range kb.entries {
		for _, dv := range e.Derive {
			if dv.From == f.ID && conditions[dv.When](s) {
				n := f
				n.ID, n.Title, n.Cause, n.Fix, n.Source = e.ID, e.Title, e.Cause, e.Fix, e.Source
				n.Commands = append([]string(nil), e.Commands...)
				n.Patch = e.Patch
				return n, true
			}
		}
	}
	return f, false
}

func (kb *KB) facts4(id string, logFacts map[string]string, s *machine.Snapshot) []string {
	e, ok := kb.Entry(id)
	if !ok {
		return nil
	}
	var out []string
	for _, key := range e.Facts {
		var fact *Fact
		for i := range kb.facts {
			if kb.facts[i].Key == key {
				fact = &kb.facts[i]
			}
		}
		if fact == nil {
			continue
		}
		v := logFacts[key]
		if v == "" && s != nil && fact.logRe == nil {
			v = snapshotFact(key, s)
		}
		if v != "" {
			out = append(out, strings.ReplaceAll(fact.Text, "{value}", v))
		}
	}
	return out
}

// FactSentence joins a finding's facts into one sentence:
// "Your nvcc is 12.2 and your MSVC is 19.41, which is why."
func (kb *KB) FactSentence(facts []string) string {
	if len(facts) == 0 {
		return ""
	}
	s := strings.Join(facts, " and ")
	s = strings.ToUpper(s[:1]) + s[1:]
	if w := kb.Message("which_is_why"); w != "" {
		s += ", " + w
	}
	return s + "."
}

// FactSentenceFor is FactSentence for one finding. A wrapper (CMake's failed
// compiler check) does not know its cause, so its facts are context, not
// "which is why".
func (kb *KB) FactSentenceFor(id string, facts []string) string {
	if e, ok := kb.Entry(id); ok && e.Role == "wrapper" && len(facts) > 0 {
		return kb.Message("facts_context") + ": " + strings.Join(facts, "; ") + "."
	}
	return kb.FactSentence(facts)
}
