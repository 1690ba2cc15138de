package patches

import (
	"reflect"
	"strings"
	"testing"
)

func TestDefaultRegistryValid(t *testing.T) {
	r := Default()
	want := []string{"build-info", "cuda-libpath", "cuda-no-vmm", "cuda-stream-t", "msvc-stl-cuda", "nvcc-host-gcc"}
	if got := r.IDs(); !reflect.DeepEqual(got, want) {
		t.Fatalf("IDs = %v, want %v", got, want)
	}
	for _, p := range r.Patches {
		if p.Source == "" || strings.Contains(p.Source, "§") {
			t.Errorf("%s: source %q does not cite a public source", p.ID, p.Source)
		}
	}
}

func TestParseRejectsBadRegistries(t *testing.T) {
	for name, doc := range map[string]string{
		"not json":     `{`,
		"no source":    `{"patches":[{"id":"x","title":"t","why":"w","when":{"proactive":true}}]}`,
		"duplicate":    `{"patches":[{"id":"x","title":"t","why":"w","source":"s","when":{"proactive":true}},{"id":"x","title":"t","why":"w","source":"s","when":{"proactive":true}}]}`,
		"no trigger":   `{"patches":[{"id":"x","title":"t","why":"w","source":"s","when":{}}]}`,
		"missing diff": `{"patches":[{"id":"x","title":"t","why":"w","source":"s","when":{"proactive":true},"changes":{"diff":"nope.diff"}}]}`,
	} {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("%s: Parse accepted it", name)
		}
	}
}

func ids(ms []Matched) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

func TestMatch(t *testing.T) {
	r := Default()
	cases := []struct {
		name string
		s    Situation
		want []string
	}{
		{"windows cuda 12.3 with VS 17.10 toolset", Situation{OS: "windows", Backend: "cuda", CUDA: "12.3.107", MSVCToolset: "14.40.33807", EngineBuild: 9591}, []string{"msvc-stl-cuda"}},
		{"windows cuda 12.4 needs nothing", Situation{OS: "windows", Backend: "cuda", CUDA: "12.4.131", MSVCToolset: "14.41.34120", EngineBuild: 9591}, nil},
		{"windows cuda 12.3 with old toolset needs nothing", Situation{OS: "windows", Backend: "cuda", CUDA: "12.3.107", MSVCToolset: "14.39.33519"}, nil},
		{"archive without git", Situation{OS: "linux", Backend: "cpu", NoGit: true}, []string{"build-info"}},
		{"linux nvcc 11.8 with gcc 12", Situation{OS: "linux", Backend: "cuda", CUDA: "11.8.89", HostCompilerNeeded: true}, []string{"nvcc-host-gcc"}},
		{"LNK1181 diagnosed on windows", Situation{OS: "windows", Backend: "cuda", CUDA: "12.4.131", Symptoms: []string{"cuda-link-libpath"}}, []string{"cuda-libpath", "cuda-no-vmm"}},
		{"LNK1181 symptom on a cpu build", Situation{OS: "windows", Backend: "cpu", Symptoms: []string{"cuda-link-libpath"}}, nil},
		{"cudaStream_t undefined", Situation{OS: "linux", Backend: "cuda", CUDA: "11.8.89", Symptoms: []string{"cuda-stream-t-undefined"}}, []string{"cuda-stream-t"}},
		{"cuMem undefined", Situation{OS: "linux", Backend: "cuda", Symptoms: []string{"cuda-driver-lib-link"}}, []string{"cuda-no-vmm"}},
	}
	for _, c := range cases {
		if got := ids(r.Match(c.s)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Match = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestHealers(t *testing.T) {
	if got := strings.Join(Default().Healers("cuda-link-libpath"), ","); got != "cuda-libpath,cuda-no-vmm" {
		t.Errorf("Healers(cuda-link-libpath) = %s", got)
	}
	if got := Default().Healers("gpu-out-of-memory"); len(got) != 0 {
		t.Errorf("Healers(gpu-out-of-memory) = %v", got)
	}
}
