package kernels

import (
	"regexp"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/testutil"
)

// TestClassifyRecorded: each recorded real output is named with its
// failure ID, and the facts for the fix are read from it.
func TestClassifyRecorded(t *testing.T) {
	for _, c := range []struct {
		file, id string
		facts    map[string]string
	}{
		{"nvcc-11.8-sm_100.txt", "nvcc-arch-too-new", map[string]string{"arch": "sm_100", "min_cuda": "12.8"}},
		{"nvcc-11.8-ccbin-g++-12.txt", "nvcc-unsupported-gcc", map[string]string{"max_gcc": "11"}},
		{"nvcc-11.8-ccbin-missing.txt", "nvcc-no-host-compiler", nil},
		{"probe-load-no-device.txt", "cuda-no-device", nil},
		{"probe-run-no-device.txt", "cuda-no-device", nil},
		{"nvcc-unsupported-gcc-13-hvm-381.log", "nvcc-unsupported-gcc", map[string]string{"max_gcc": "12"}},
		{"nvcc-arch-dropped-mumax-310.log", "nvcc-arch-dropped", map[string]string{"arch": "sm_30", "removed_cuda": "11.0"}},
		{"nvcc-arch-too-new-whispercpp-3030.log", "nvcc-arch-too-new", map[string]string{"arch": "sm_120", "min_cuda": "12.8"}},
		{"nvcc-unsupported-msvc-llamacpppython-1586.log", "nvcc-unsupported-msvc", nil},
		{"nvcc-host-not-msvc-msys2-gxx-llamacpppython-1647-win.log", "nvcc-host-not-msvc", nil},
		{"msvc-env-missing-nvcc-darknet-8584.log", "msvc-env-missing", nil},
		{"cuda-no-kernel-image-llamacpp-4215.log", "cuda-no-kernel-image", nil},
		{"cuda-driver-too-old-llamacpppython-1436.log", "cuda-driver-too-old", nil},
		{"cuda-no-device-wsl-llamacpppython-1030.log", "cuda-no-device", nil},
		{"opencl-no-platform-llamacpp-1979.log", "opencl-no-platform", nil},
	} {
		out := testutil.Fixture(t, "kernels", c.file)
		cl := Classify(out)
		if cl.ID != c.id {
			t.Errorf("%s: classified %q (%q), want %q", c.file, cl.ID, cl.Excerpt, c.id)
			continue
		}
		if cl.Line == 0 || !strings.Contains(out, strings.TrimSuffix(cl.Excerpt, "…")) {
			t.Errorf("%s: excerpt %q line %d", c.file, cl.Excerpt, cl.Line)
		}
		got := failureFacts(cl, out)
		for k, v := range c.facts {
			if got[k] != v {
				t.Errorf("%s: fact %s = %q, want %q", c.file, k, got[k], v)
			}
		}
	}
	if cl := Classify("everything fine\n"); cl.ID != "" {
		t.Errorf("clean output classified %q", cl.ID)
	}
}

// Every failure ID the classifier can return has a finding text, and every
// message renders without a leftover placeholder when its facts are given.
func TestMessagesCoverRules(t *testing.T) {
	tb := loadTables()
	for _, r := range tb.rules {
		if _, ok := tb.messages["probe.cuda/"+r.ID]; !ok {
			t.Errorf("rule %s has no probe.cuda/%s message", r.ID, r.ID)
		}
		if r.Source == "" {
			t.Errorf("rule %s cites no source", r.ID)
		}
	}
	// Every placeholder in the texts is a fact some stage sets.
	known := map[string]bool{}
	for _, k := range []string{"nvcc", "nvcc_version", "archs", "host", "device", "cc", "cc_arch", "arch", "min_cuda", "removed_cuda", "max_gcc", "stage", "timeout", "kb_title", "type", "opencl_c", "platform", "reason", "detail"} {
		known[k] = true
	}
	reP := regexp.MustCompile(`\{(\w+)\}`)
	for key, m := range tb.messages {
		for _, p := range reP.FindAllStringSubmatch(m.Summary+m.Fix+strings.Join(m.Commands, " "), -1) {
			if !known[p[1]] {
				t.Errorf("%s uses unknown placeholder {%s}", key, p[1])
			}
		}
	}
	m := render("probe.cuda/nvcc-arch-too-new", map[string]string{"nvcc_version": "11.8.89", "arch": "sm_100", "min_cuda": "12.8"})
	if strings.Contains(m.Summary+m.Fix, "{") {
		t.Errorf("unfilled placeholder: %+v", m)
	}
}

func TestParseArch(t *testing.T) {
	for in, want := range map[string]string{
		"sm_89":      "--generate-code=arch=compute_89,code=[sm_89]",
		"compute_90": "--generate-code=arch=compute_90,code=[compute_90]",
		"89":         "--generate-code=arch=compute_89,code=[compute_89,sm_89]",
		"86-real":    "--generate-code=arch=compute_86,code=[sm_86]",
		"120a":       "--generate-code=arch=compute_120a,code=[compute_120a,sm_120a]",
		"75-virtual": "--generate-code=arch=compute_75,code=[compute_75]",
	} {
		a, err := ParseArch(in)
		if err != nil || a.Gencode() != want {
			t.Errorf("ParseArch(%q) = %s, %v; want %s", in, a.Gencode(), err, want)
		}
	}
	for _, bad := range []string{"", "native", "all", "sm_", "89-fake", "8.9", "compute_x", "1000"} {
		if _, err := ParseArch(bad); err == nil {
			t.Errorf("ParseArch(%q) accepted", bad)
		}
	}
	as, err := ParseArchList("86-real;89-real")
	if err != nil || ArchList(as) != "86-real;89-real" {
		t.Errorf("round trip: %v %v", as, err)
	}
}

func TestParseProbeOutput(t *testing.T) {
	out := testutil.Fixture(t, "kernels", "probe-load-no-device.txt")
	ls := parseProbeOutput(out)
	if len(ls) != 2 || ls[1].kv["name"] != "cudaErrorNoDevice" || ls[1].kv["msg"] != "no CUDA-capable device is detected" || ls[0].kv["driver_version"] != "12020" {
		t.Errorf("parsed %+v", ls)
	}
}

func FuzzParseArchList(f *testing.F) {
	for _, s := range []string{"86-real;89-real", "sm_100", "compute_120a,89", "native", ";;", "999f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		as, err := ParseArchList(s)
		if err != nil {
			return
		}
		again, err := ParseArchList(ArchList(as))
		if err != nil || ArchList(again) != ArchList(as) {
			t.Fatalf("round trip of %q: %v %v", s, again, err)
		}
	})
}

func FuzzClassify(f *testing.F) {
	for _, s := range []string{"nvcc fatal   : Unsupported gpu architecture 'compute_100'", "#error -- unsupported GNU version! gcc versions later than 11 are not supported!", "LLAMACTL load ok=0 name=cudaErrorNoDevice", "Value 'sm_' is not defined for option 'gpu-architecture'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cl := Classify(s)
		facts := failureFacts(cl, s)
		_ = render("probe.cuda/"+cl.ID, facts)
		if cl.ID != "" && cl.Excerpt == "" {
			t.Fatalf("%s without an excerpt", cl.ID)
		}
	})
}

func FuzzParseProbeOutput(f *testing.F) {
	f.Add("LLAMACTL device index=0 cc=8.9 mem_mib=24564 name=\"NVIDIA GeForce RTX 4090\"\n")
	f.Add("LLAMACTL bandwidth device_gbps=900.1 h2d_gbps=24.5\nLLAMACTL ")
	f.Fuzz(func(t *testing.T, s string) {
		for _, l := range parseProbeOutput(s) {
			if l.kv == nil {
				t.Fatal("nil map")
			}
		}
	})
}

// TestKnowledgeBaseOnlyFailure: a failure the knowledge base names but the
// probe has no text for gets the knowledge base's fix.
func TestKnowledgeBaseOnlyFailure(t *testing.T) {
	out := testutil.Fixture(t, "kernels", "cuda-toolkit-too-old-pdl-cuda-11.8-llamacpp-26591.log")
	cl := Classify(out)
	if cl.ID != "cuda-toolkit-too-old" {
		t.Fatalf("classified %+v", cl)
	}
	fs := Findings([]StageResult{{Kind: "cuda", Stage: StageCompile, FailureID: cl.ID, Excerpt: cl.Excerpt}})
	e, _ := failures.Default().Entry(cl.ID)
	if fs[0].Message != "probe.cuda/known" || fs[0].Fix == nil || fs[0].Fix.Text != e.Fix || !strings.Contains(fs[0].Summary, e.Title) {
		t.Errorf("finding %+v", fs[0])
	}
}

// TestGencodeMatchesCMake: for the same CMAKE_CUDA_ARCHITECTURES, the probe
// passes nvcc exactly the --generate-code flags CMake generated (recorded
// from a real CMake + nvcc 11.8 configure).
func TestGencodeMatchesCMake(t *testing.T) {
	body := testutil.FixtureBody(t, "kernels", "cmake-3.25-cuda-flags-86-real-89.txt")
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
		if strings.HasPrefix(l, "--generate-code=") {
			want = append(want, l)
		}
	}
	as, err := ParseArchList("86-real;89")
	if err != nil {
		t.Fatal(err)
	}
	got := CUDAPlan{Archs: as}.Gencodes()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("probe %q, CMake %q", got, want)
	}
}

func BenchmarkClassify(b *testing.B) {
	out := testutil.Fixture(b, "kernels", "nvcc-unsupported-msvc-llamacpppython-1586.log")
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		Classify(out)
	}
}
