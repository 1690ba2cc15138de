package plan

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/runner/engine"
	"github.com/llamactl/llamactl/runner/gguf"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
	"github.com/llamactl/llamactl/runner/launch"
)

// llama3_8B is Llama-3.1-8B Q4_K_M's shape (its GGUF metadata: 32 layers, 8 KV heads, head dim 128, 128 KiB/token KV at f16).
func llama3_8B() *gguf.Model {
	m := &gguf.Model{Architecture: "llama", Layers: 32, ContextLength: 131072, EmbeddingLength: 4096, FeedForward: 14336,
		HeadCount: 32, KeyLength: 128, ValueLength: 128, Causal: true}
	m.Tokenizer.VocabSize = 128256
	for i := 0; i < 32; i++ {
		m.HeadCountKV = append(m.HeadCountKV, 8)
		m.Weights.Layer = append(m.Weights.Layer, 136<<20) // ~4.35 GiB of blocks
	}
	m.Weights.TokenEmbd = 281 << 20
	m.Weights.Output = 411 << 20
	return m
}

func moeModel() *gguf.Model {
	m := llama3_8B()
	m.Architecture = "qwen3moe"
	m.ExpertCount, m.ExpertUsed, m.ExpertFF = 128, 8, 768
	m.Weights.LayerExperts = make([]uint64, 32)
	for i := range m.Weights.Layer {
		m.Weights.Layer[i] = 520 << 20
		m.Weights.LayerExperts[i] = 480 << 20
	}
	return m
}

var gpuCaps = engine.Caps{FlashAttn: true, CacheTypes: true, CPUMoE: true}
var bigHost = Host{AvailableMiB: 64000, PhysicalCores: 8, LogicalCores: 16}

func TestKVWorkedExample(t *testing.T) {
	m := llama3_8B()
	p := Params{Ctx: 8192, UBatch: 512, Parallel: 1, FlashAttn: true, CacheK: "f16", CacheV: "f16"}
	var kv float64
	for l := 0; l < m.Layers; l++ {
		kv += kvLayerBytes(m, l, p)
	}
	if kv != 1<<30 { // 128 KiB/token × 8192 = 1 GiB
		t.Errorf("KV = %.0f bytes, want 1 GiB", kv)
	}
	p.CacheK, p.CacheV = "q8_0", "q8_0"
	kv = 0
	for l := 0; l < m.Layers; l++ {
		kv += kvLayerBytes(m, l, p)
	}
	if kv != 8192*68*1024 { // 68 KiB/token at q8_0
		t.Errorf("q8_0 KV = %.0f", kv)
	}
}

func TestPlanTable(t *testing.T) {
	cases := []struct {
		name  string
		model *gguf.Model
		devs  []engine.Device
		req   Request
		check func(t *testing.T, r Result)
	}{
		{"24GB full offload at the trained context", llama3_8B(), []engine.Device{{ID: "CUDA0", TotalMiB: 24564, FreeMiB: 24000}}, Request{NGL: -1},
			func(t *testing.T, r Result) {
				if r.Plan.NGL != 33 || r.Plan.Ctx != 131072 || r.Plan.CacheK != "f16" || !r.Fits {
					t.Errorf("plan = %+v", r.Plan)
				}
			}},
		{"8GB: all layers, context reduced (speed over context)", llama3_8B(), []engine.Device{{ID: "CUDA0", TotalMiB: 8192, FreeMiB: 7600}}, Request{NGL: -1},
			func(t *testing.T, r Result) {
				if r.Plan.NGL != 33 || r.Plan.Ctx >= 131072 || r.Plan.Ctx < 4096 {
					t.Errorf("plan = %+v", r.Plan)
				}
				if !strings.Contains(strings.Join(r.Reasons, "\n"), "context reduced from the trained 131072") {
					t.Errorf("reasons = %q", r.Reasons)
				}
				d := r.Predicted.Devices[0]
				if d.Total()+d.OverheadMiB > 7600 {
					t.Errorf("prediction %+v exceeds free memory", d)
				}
			}},
		{"pinned context: q8_0 KV before dropping layers", llama3_8B(), []engine.Device{{ID: "CUDA0", TotalMiB: 10240, FreeMiB: 9000}}, Request{NGL: -1, Ctx: 32768},
			func(t *testing.T, r Result) {
				// f16 at 32k is 4 GiB of KV + 4.8 GiB weights: too much; q8_0 is 2.1 GiB.
				if r.Plan.NGL != 33 || r.Plan.Ctx != 32768 || r.Plan.CacheK != "q8_0" {
					t.Errorf("plan = %+v", r.Plan)
				}
			}},
		{"4GB: partial offload", llama3_8B(), []engine.Device{{ID: "CUDA0", TotalMiB: 4096, FreeMiB: 3800}}, Request{NGL: -1},
			func(t *testing.T, r Result) {
				if r.Plan.NGL <= 0 || r.Plan.NGL >= 33 || !r.Fits {
					t.Errorf("plan = %+v", r.Plan)
				}
				if r.Predicted.Host.ModelMiB < 1000 {
					t.Errorf("CPU layers not on the host: %+v", r.Predicted.Host)
				}
			}},
		{"MoE: experts on the CPU before dropping layers", moeModel(), []engine.Device{{ID: "CUDA0", TotalMiB: 12288, FreeMiB: 11500}}, Request{NGL: -1},
			func(t *testing.T, r Result) {
				if r.Plan.NGL != 33 || r.Plan.NCPUMoE == 0 || r.Plan.NCPUMoE > 32 {
					t.Errorf("plan = %+v", r.Plan)
				}
			}},
		{"two GPUs: one holds it all", llama3_8B(), []engine.Device{{ID: "CUDA0", TotalMiB: 4096, FreeMiB: 4000}, {ID: "CUDA1", TotalMiB: 8192, FreeMiB: 8000}}, Request{NGL: -1, Ctx: 8192},
			func(t *testing.T, r Result) {
				if r.Plan.SplitMode != "none" || r.Plan.MainGPU != 1 || r.Plan.TensorSplit != nil || r.Predicted.Devices[0].ModelMiB != 0 {
					t.Errorf("plan = %+v devices %+v", r.Plan, r.Predicted.Devices)
				}
				if s := strings.Join(Argv(r.Plan, engine.Caps{}, ArgvOptions{Model: "m"}), " "); !strings.Contains(s, "-sm none -mg 1") {
					t.Errorf("argv = %s", s)
				}
			}},
		{"two GPUs: split by free memory", llama3_8B(), []engine.Device{{ID: "CUDA0", TotalMiB: 6144, FreeMiB: 5000}, {ID: "CUDA1", TotalMiB: 4096, FreeMiB: 4000}}, Request{NGL: -1, Ctx: 8192},
			func(t *testing.T, r Result) {
				if len(r.Plan.TensorSplit) != 2 || r.Plan.TensorSplit[0]+r.Plan.TensorSplit[1] != 33 || r.Plan.TensorSplit[0] <= r.Plan.TensorSplit[1] {
					t.Errorf("split = %v", r.Plan.TensorSplit)
				}
				if r.Predicted.Devices[1].ModelMiB == 0 {
					t.Errorf("second GPU unused: %+v", r.Predicted.Devices)
				}
			}},
		{"CPU only", llama3_8B(), nil, Request{NGL: -1, Ctx: 8192},
			func(t *testing.T, r Result) {
				if r.Plan.NGL != 0 || r.Plan.Threads != 8 || r.Plan.ThreadsBatch != 16 || r.Predicted.Host.ModelMiB < 4000 {
					t.Errorf("plan = %+v host %+v", r.Plan, r.Predicted.Host)
				}
			}},
		{"does not fit anywhere", llama3_8B(), nil, Request{NGL: -1},
			func(t *testing.T, r Result) {
				if r.Fits || !strings.Contains(strings.Join(r.Reasons, " "), "does not fit") {
					t.Errorf("result = %+v", r)
				}
			}},
		{"pinned -ngl is kept", llama3_8B(), []engine.Device{{ID: "CUDA0", TotalMiB: 24564, FreeMiB: 24000}}, Request{NGL: 10, Ctx: 4096},
			func(t *testing.T, r Result) {
				if r.Plan.NGL != 10 {
					t.Errorf("plan = %+v", r.Plan)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			host := bigHost
			if c.name == "does not fit anywhere" {
				host.AvailableMiB = 2000
			}
			r, err := Make(c.model, c.devs, host, c.req, gpuCaps)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, r)
			// The chosen plan, checked as it is (a remembered plan), has
			// the same prediction and fits the same.
			if pred, fits := checkPlan(c.model, c.devs, host, c.req, gpuCaps, r.Plan); fits != r.Fits || !reflect.DeepEqual(pred, r.Predicted) {
				t.Errorf("Check = %v %+v, Make predicted %v %+v", fits, pred, r.Fits, r.Predicted)
			}
		})
	}
}

// A remembered plan is checked as it is: its experts on the CPU and its
// tensor split count, and less free memory than when it was made makes it
// stale.
func TestCheckRememberedPlan(t *testing.T) {
	moe := moeModel()
	dev := []engine.Device{{ID: "CUDA0", TotalMiB: 12288, FreeMiB: 11500}}
	r, err := Make(moe, dev, bigHost, Request{NGL: -1}, gpuCaps)
	if err != nil || !r.Fits || r.Plan.NCPUMoE == 0 {
		t.Fatalf("MoE plan = %+v, %v", r.Plan, err)
	}
	if _, fits := checkPlan(moe, dev, bigHost, Request{NGL: -1}, gpuCaps, r.Plan); !fits {
		t.Error("the MoE plan with its experts on the CPU does not fit as it is")
	}
	all := r.Plan
	all.NCPUMoE = 0 // every expert on the GPU: what re-planning with only -ngl pinned weighed
	if _, fits := checkPlan(moe, dev, bigHost, Request{NGL: -1}, gpuCaps, all); fits {
		t.Error("all experts on the 11.5 GiB GPU fit: the MoE case proves nothing")
	}
	less := []engine.Device{{ID: "CUDA0", TotalMiB: 12288, FreeMiB: 2000}}
	if _, fits := checkPlan(moe, less, bigHost, Request{NGL: -1}, gpuCaps, r.Plan); fits {
		t.Error("a plan made for 11.5 GiB free still fits in 2 GiB")
	}
	two := []engine.Device{{ID: "CUDA0", TotalMiB: 6144, FreeMiB: 5000}, {ID: "CUDA1", TotalMiB: 4096, FreeMiB: 4000}}
	p := Plan{NGL: 33, Ctx: 4096, Batch: 2048, UBatch: 512, Threads: 8, FlashAttn: "on", CacheK: "f16", CacheV: "f16", Parallel: 1, TensorSplit: []int{30, 3}}
	pred, _ := checkPlan(llama3_8B(), two, bigHost, Request{NGL: -1}, gpuCaps, p)
	p.TensorSplit = []int{3, 30}
	swapped, _ := checkPlan(llama3_8B(), two, bigHost, Request{NGL: -1}, gpuCaps, p)
	if len(pred.Devices) != 2 || pred.Devices[0].ModelMiB <= 5*pred.Devices[1].ModelMiB || swapped.Devices[1].ModelMiB <= 5*swapped.Devices[0].ModelMiB {
		t.Errorf("-ts 30,3 predicted %+v, -ts 3,30 %+v", pred.Devices, swapped.Devices)
	}
}

// checkPlan predicts a remembered plan p alone, as Make does for
// Request.Remembered.
func checkPlan(m *gguf.Model, devs []engine.Device, host Host, req Request, caps engine.Caps, p Plan) (Prediction, bool) {
	return newPlanner(m, devs, host, req, caps).check(p)
}

// A remembered plan is checked in Make's own pass: kept when it still fits
// (with its prediction as it is), the fresh plan when it does not, and the
// reasons and runner-ups are those of the pass without it either way.
func TestMakeRemembered(t *testing.T) {
	moe := moeModel()
	dev := []engine.Device{{ID: "CUDA0", TotalMiB: 12288, FreeMiB: 11500}}
	fresh, err := Make(moe, dev, bigHost, Request{NGL: -1}, gpuCaps)
	if err != nil || !fresh.Fits || fresh.Kept || len(fresh.Alternatives) == 0 {
		t.Fatalf("fresh plan = %+v, %v", fresh, err)
	}
	older := fresh.Plan
	older.Ctx /= 2 // remembered from a run that asked for less
	r, err := Make(moe, dev, bigHost, Request{NGL: -1, Remembered: &older}, gpuCaps)
	pred, _ := checkPlan(moe, dev, bigHost, Request{NGL: -1}, gpuCaps, older)
	if err != nil || !r.Kept || !reflect.DeepEqual(r.Plan, older) || !reflect.DeepEqual(r.Predicted, pred) {
		t.Errorf("remembered plan not kept as it is: %+v", r)
	}
	if !reflect.DeepEqual(r.Reasons, fresh.Reasons) || !reflect.DeepEqual(r.Alternatives, fresh.Alternatives) || r.Fits != fresh.Fits {
		t.Errorf("reasons/runner-ups differ from the pass without the remembered plan:\n%+v\n%+v", r, fresh)
	}
	stale := fresh.Plan
	stale.NCPUMoE = 0 // every expert on the 11.5 GiB GPU: does not fit
	r, err = Make(moe, dev, bigHost, Request{NGL: -1, Remembered: &stale}, gpuCaps)
	if err != nil || r.Kept || !reflect.DeepEqual(r.Plan, fresh.Plan) || !reflect.DeepEqual(r.Predicted, fresh.Predicted) {
		t.Errorf("a stale remembered plan was kept: %+v", r)
	}
}

func TestBadRequest(t *testing.T) {
	if _, err := Make(llama3_8B(), nil, bigHost, Request{NGL: -1, CacheType: "q9_9"}, gpuCaps); err == nil {
		t.Error("unknown cache type accepted")
	}
	if _, err := Make(&gguf.Model{Type: "mmproj"}, nil, bigHost, Request{NGL: -1}, gpuCaps); err == nil {
		t.Error("model without layers accepted")
	}
}

// The prediction for a generated model against what llama.cpp build 11669
// reported for it (testdata/runner/llama-server-b11669-llama-f16-cpu.log:
// -c 4096 -ub 512 -fa on, f16 KV, one slot).
func TestPredictMatchesRecordedEngine(t *testing.T) {
	m := genModel(t, ggufwrite.Config{Arch: "llama"})
	host, _ := Predict(m, Params{Ctx: 4096, UBatch: 512, Parallel: 1, FlashAttn: true, CacheK: "f16", CacheV: "f16"}, 0, nil, Calibration{})
	got := launch.ParseLog(strings.NewReader(testutil.Fixture(t, "runner", "llama-server-b11669-llama-f16-cpu.log"))).Host
	for _, c := range []struct {
		name      string
		pred, act float64
	}{{"model", host.ModelMiB, got.ModelMiB}, {"context", host.ContextMiB, got.ContextMiB}, {"compute", host.ComputeMiB, got.ComputeMiB}} {
		if math.Abs(c.pred-c.act) > 0.02*c.act+0.02 {
			t.Errorf("%s: predicted %.2f MiB, engine reported %.2f MiB", c.name, c.pred, c.act)
		}
	}
}

func TestArgv(t *testing.T) {
	caps := engine.ParseHelp(testutil.Fixture(t, "runner", "llama-server-b11669-help.txt"))
	p := Plan{NGL: 33, Ctx: 8192, Batch: 2048, UBatch: 512, Threads: 8, ThreadsBatch: 16, FlashAttn: "on", CacheK: "q8_0", CacheV: "q8_0", Parallel: 1}
	a := Argv(p, caps, ArgvOptions{Model: "m.gguf", Host: "127.0.0.1", Port: 8080, Draft: "d.gguf", DraftMax: 8, NoMmap: true, Extra: []string{"--jinja"}})
	s := strings.Join(a, " ")
	for _, want := range []string{"-m m.gguf", "-c 8192", "-ngl 33", "-fa on", "-ctk q8_0 -ctv q8_0", "--fit off", "-np 1", "--load-mode none",
		"-md d.gguf --spec-type draft-simple", "--spec-draft-n-max 8", "--host 127.0.0.1 --port 8080", "-lv 4", "-tb 16"} {
		if !strings.Contains(s, want) {
			t.Errorf("argv %q lacks %q", s, want)
		}
	}
	old := engine.ParseHelp("-fa,   --flash-attn                     enable Flash Attention\n--no-mmap                               do not memory-map model\n-md,   --model-draft FNAME              draft model\n")
	if a[len(a)-1] != "--jinja" {
		t.Errorf("extra engine args must come last: %v", a)
	}
	s = strings.Join(Argv(p, old, ArgvOptions{Model: "m.gguf", NoMmap: true, Draft: "d.gguf", DraftMax: 8}), " ")
	if !strings.Contains(s, "-fa -") && !strings.HasSuffix(s, "-fa") || strings.Contains(s, "-fa on") || strings.Contains(s, "--fit") ||
		!strings.Contains(s, "--no-mmap") || strings.Contains(s, "--spec-type") || strings.Contains(s, "-ctk") || !strings.Contains(s, "--draft-max 8") {
		t.Errorf("old engine argv = %q", s)
	}
	p.Embedding = true
	a = Argv(p, caps, ArgvOptions{Model: "e.gguf", Pooling: "mean"})
	if !slices.Contains(a, "--embedding") || !strings.Contains(strings.Join(a, " "), "--pooling mean") {
		t.Errorf("embedding argv = %v", a)
	}
}

func TestCoefficientsHaveSource(t *testing.T) {
	c := Coef()
	if c.Source == "" || c.Compute.ConstantBytes == 0 || c.CtxFloor == 0 {
		t.Errorf("coefficients = %+v", c)
	}
}

func TestPartialOffloadReservesLargestTensor(t *testing.T) {
	m := llama3_8B()
	m.Weights.LargestLayerTensor = 56 << 20
	p := Params{NGL: 20, Ctx: 4096, UBatch: 512, Parallel: 1, FlashAttn: true, CacheK: "f16", CacheV: "f16"}
	_, partial := Predict(m, p, 1, []float64{1}, Calibration{})
	p.NGL = 33
	_, full := Predict(m, p, 1, []float64{1}, Calibration{})
	if d := partial[0].ComputeMiB - full[0].ComputeMiB; d < 55.9 || d > 56.1 {
		t.Errorf("partial offload compute %.1f vs full %.1f MiB: want 56 MiB more", partial[0].ComputeMiB, full[0].ComputeMiB)
	}
}

// DeepSeek-V3's MLA cache since llama.cpp#19067: K only, 576 per token and
// layer, one KV head: about 70 KB per token at f16.
func TestKVMLA(t *testing.T) {
	m := &gguf.Model{Layers: 61, KeyLength: 576, ValueLength: 512, KVLoraRank: 512}
	for i := 0; i < 61; i++ {
		m.HeadCountKV = append(m.HeadCountKV, 1)
	}
	p := Params{Ctx: 256, UBatch: 256, Parallel: 1, FlashAttn: true, CacheK: "f16", CacheV: "f16"}
	var kv float64
	for l := 0; l < m.Layers; l++ {
		kv += kvLayerBytes(m, l, p)
	}
	if per := kv / 256; per != 61*576*2 {
		t.Errorf("MLA KV = %.0f bytes/token, want %d", per, 61*576*2)
	}
}

// gemma3's pattern: 5 sliding-window layers, then one global: at
// 32k context the SWA layers hold window+ubatch cells, not 32k.
func TestKVSlidingWindow(t *testing.T) {
	m := &gguf.Model{Layers: 12, KeyLength: 128, ValueLength: 128, SlidingWindow: 1024}
	for i := 0; i < 12; i++ {
		m.HeadCountKV = append(m.HeadCountKV, 16)
		m.SWALayers = append(m.SWALayers, i%6 != 5)
	}
	p := Params{Ctx: 32768, UBatch: 512, Parallel: 1, FlashAttn: true, CacheK: "f16", CacheV: "f16"}
	if c := layerCells(m, 0, p); c != 1536 {
		t.Errorf("SWA layer cells = %d, want pad256(1024+512) = 1536", c)
	}
	if c := layerCells(m, 5, p); c != 32768 {
		t.Errorf("global layer cells = %d", c)
	}
}
