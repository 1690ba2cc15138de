package kernels

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/kernels/opencl"
)

// No text says "(s)": counted nouns have one/other forms.
func TestNoParenthesisPlurals(t *testing.T) {
	b, err := dataFS.ReadFile("data/messages.json")
	if err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if strings.Contains(x, "(s)") {
				t.Errorf("%q uses (s): add a one/other form under counts", x)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	walk(doc)
	for noun, f := range loadTables().counts {
		if !strings.Contains(f.One, "{count}") || !strings.Contains(f.Other, "{count}") || f.One == f.Other {
			t.Errorf("counts.%s: %+v", noun, f)
		}
	}
}

func TestOpenCLDetailPlurals(t *testing.T) {
	dev := opencl.Device{Name: "cpu", Type: "CPU"}
	for _, c := range []struct {
		platforms [][]opencl.Device
		want      string
	}{
		{[][]opencl.Device{{dev}}, "1 platform, 1 device through libOpenCL.so.1"},
		{[][]opencl.Device{{dev, dev}, {dev}}, "2 platforms, 3 devices through libOpenCL.so.1"},
		{[][]opencl.Device{{}}, "1 platform, 0 devices through libOpenCL.so.1"},
	} {
		rep := opencl.Report{Schema: 1, Status: opencl.StatusOK, Loader: "libOpenCL.so.1"}
		for _, ds := range c.platforms {
			rep.Platforms = append(rep.Platforms, opencl.Platform{Name: "P", Devices: ds})
		}
		if got := openCLStages(rep, StageResult{})[0].Detail; got != c.want {
			t.Errorf("detail %q, want %q", got, c.want)
		}
	}
}

// The CUDA load stage says "1 device" / "2 devices".
func TestCUDADetailPlurals(t *testing.T) {
	dev := func(i int) string {
		return "LLAMACTL device index=" + string(rune('0'+i)) + " cc=8.9 mem_mib=24217 name=\"NVIDIA GeForce RTX 4090\"\n"
	}
	for n, want := range map[int]string{1: "1 device", 2: "2 devices"} {
		load := "LLAMACTL load runtime_version=11080 built_runtime=11080 driver_version=12060\n"
		for i := range n {
			load += dev(i)
		}
		load += "LLAMACTL load ok=1\n"
		answers := []proc.Result{{}, {}, {Stdout: []byte(load)}}
		for range n {
			answers = append(answers, proc.Result{Stdout: []byte("LLAMACTL run ok=1\nLLAMACTL verify ok=1 elements=1048576\n")})
		}
		plan, _ := PlanCUDA(nil, Choice{}, Overrides{NVCC: "/usr/bin/nvcc", Arch: "89-real"}, "linux", nil)
		plan.ToolkitVersion = "11.8.89"
		rep := ProbeCUDA(context.Background(), &recorder{answers: answers}, plan)
		if got := stage(t, rep, StageLoad).Detail; got != want {
			t.Errorf("%d devices: detail %q, want %q", n, got, want)
		}
	}
}
