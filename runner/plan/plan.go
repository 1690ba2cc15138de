package plan

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/llamactl/llamactl/runner/engine"
	"github.com/llamactl/llamactl/runner/gguf"
)

// Host is the machine's RAM and cores.
type Host struct {
	AvailableMiB  uint64 `json:"available_mib"`
	PhysicalCores int    `json:"physical_cores"`
	LogicalCores  int    `json:"logical_cores"`
}

// Request is what the user pinned; zero values mean "choose".
type Request struct {
	Ctx       uint64
	NGL       int // -1 = choose
	Batch     int
	UBatch    int
	Threads   int
	CacheType string // f16, q8_0...; "" = choose
	FlashAttn string // on, off; "" = choose
	Parallel  int
	Draft     *gguf.Model
	// Calibration from earlier runs of this model on this engine build.
	Calibration Calibration
	// Remembered is the plan an earlier run launched for this model,
	// devices, engine build and flags (run's plan cache), or nil. Make
	// predicts it as it is, nothing in it chosen again, in the same pass
	// that plans afresh: when it still fits, the Result carries it and its
	// prediction (Kept); the reasons and runner-ups are the pass's either
	// way.
	Remembered *Plan
}

// Plan is the chosen launch parameters.
type Plan struct {
	NGL          int    `json:"n_gpu_layers"`
	Ctx          uint64 `json:"ctx_size"`
	Batch        int    `json:"batch_size"`
	UBatch       int    `json:"ubatch_size"`
	Threads      int    `json:"threads"`
	ThreadsBatch int    `json:"threads_batch"`
	FlashAttn    string `json:"flash_attn"`
	CacheK       string `json:"cache_type_k"`
	CacheV       string `json:"cache_type_v"`
	NCPUMoE      int    `json:"n_cpu_moe,omitempty"`
	TensorSplit  []int  `json:"tensor_split,omitempty"`
	// SplitMode "none" with MainGPU: the whole model on one GPU.
	SplitMode string `json:"split_mode,omitempty"`
	MainGPU   int    `json:"main_gpu,omitempty"`
	Parallel  int    `json:"parallel"`
	Embedding bool   `json:"embedding,omitempty"`
	// NoOpOffload: --no-op-offload, for a GPU too small even for the
	// compute buffer: everything runs on the CPU.
	NoOpOffload bool `json:"no_op_offload,omitempty"`
}

// DeviceMem is the prediction for one device.
type DeviceMem struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Mem
	OverheadMiB float64 `json:"overhead_mib"`
	FreeMiB     uint64  `json:"free_mib"`
}

// Prediction is the memory the plan needs.
type Prediction struct {
	Host         Mem         `json:"host"`
	HostFreeMiB  uint64      `json:"host_available_mib"`
	Devices      []DeviceMem `json:"devices"`
	DraftHostMiB float64     `json:"draft_host_mib,omitempty"`
}

// Alternative is a candidate the planner weighed.
type Alternative struct {
	Plan      Plan       `json:"plan"`
	Predicted Prediction `json:"predicted"`
	Fits      bool       `json:"fits"`
	Why       string     `json:"why"`
}

// Result is the planner's answer.
type Result struct {
	Plan         Plan          `json:"plan"`
	Predicted    Prediction    `json:"predicted"`
	Reasons      []string      `json:"reasons"`
	Alternatives []Alternative `json:"alternatives,omitempty"`
	Fits         bool          `json:"fits"`
	// Kept says Plan is Request.Remembered, which still fits as it is.
	Kept bool `json:"-"`
}

// candidate evaluation
type eval struct {
	p    Params
	pred Prediction
	fits bool
	why  string
}

type planner struct {
	m     *gguf.Model
	devs  []engine.Device
	host  Host
	req   Request
	caps  engine.Caps
	coef  Coefficients
	split []float64
	tried []eval
}

// Make chooses launch parameters for model m. Preference: all layers
// on the GPU (largest context first, f16 then q8_0 KV), then MoE experts on
// the CPU, then fewer layers; the context is reduced before layers are
// dropped unless the user pinned it.
// Devices and caps are what the engine reported (runner/engine): the
// engine's flags say which features (flash attention, KV cache types,
// --n-cpu-moe, --no-op-offload) a plan may use.
func Make(m *gguf.Model, devs []engine.Device, host Host, req Request, caps engine.Caps) (Result, error) {
	if m.Layers == 0 {
		return Result{}, fmt.Errorf("the model has no layers: is it a %q file rather than a model?", m.Type)
	}
	if req.CacheType != "" && !KnownCacheType(req.CacheType) {
		return Result{}, fmt.Errorf("unknown KV cache type %q (use f16, q8_0, q4_0, ...)", req.CacheType)
	}
	if req.NGL > m.Layers+1 {
		req.NGL = m.Layers + 1
	}
	pl := newPlanner(m, devs, host, req, caps)
	res, err := pl.run()
	if err == nil && req.Remembered != nil {
		if pred, fits := pl.check(*req.Remembered); fits {
			res.Plan, res.Predicted, res.Kept = *req.Remembered, pred, true
		}
	}
	return res, err
}

// newPlanner splits layers over the devices by their free memory.
func newPlanner(m *gguf.Model, devs []engine.Device, host Host, req Request, caps engine.Caps) *planner {
	pl := &planner{m: m, devs: devs, host: host, req: req, caps: caps, coef: Coef()}
	for _, d := range devs {
		pl.split = append(pl.split, math.Max(float64(d.FreeMiB)-pl.devOverhead(d), 1))
	}
	return pl
}

func (pl *planner) devOverhead(d engine.Device) float64 {
	return pl.coef.Backend(d.ID).OverheadMiB
}

func (pl *planner) devMargin(d engine.Device) float64 {
	b := pl.coef.Backend(d.ID)
	return math.Max(b.MarginMiB, b.MarginFraction*float64(d.TotalMiB))
}

func (pl *planner) hostMargin() float64 {
	return math.Max(pl.coef.HostMarginMiB, pl.coef.HostMarginFraction*float64(pl.host.AvailableMiB))
}

func (pl *planner) ctxCandidates() []uint64 {
	if pl.req.Ctx > 0 {
		return []uint64{pl.req.Ctx}
	}
	train := pl.m.ContextLength
	if train == 0 {
		train = pl.coef.CtxFloor
	}
	floor := min(pl.coef.CtxFloor, train)
	var out []uint64
	for c := train; ; c /= 2 {
		if c < floor || c == 0 {
			if len(out) == 0 || out[len(out)-1] != floor {
				out = append(out, floor)
			}
			return out
		}
		if c >= 512 {
			c = c / 256 * 256 // llama.cpp pads cells to 256 anyway
		}
		out = append(out, c)
		if c == floor {
			return out
		}
	}
}

func (pl *planner) kvTypes(fa bool) []string {
	if pl.req.CacheType != "" {
		return []string{pl.req.CacheType}
	}
	if fa && pl.caps.CacheTypes {
		return []string{"f16", "q8_0"} // quantized V needs flash attention (llama.cpp refuses a quantized V cache without it)
	}
	return []string{"f16"}
}

func (pl *planner) flashAttn() bool {
	switch pl.req.FlashAttn {
	case "on":
		return true
	case "off":
		return false
	}
	return pl.caps.FlashAttn
}

func (pl *planner) ubatch(ctx uint64) int {
	ub := pl.coef.UBatch
	if pl.m.Embedding {
		// Embedding models must see a whole input in one ubatch.
		ub = int(ctx)
	}
	if pl.req.UBatch > 0 {
		ub = pl.req.UBatch
	}
	return int(min(uint64(ub), ctx))
}

func (pl *planner) params(ngl int, ctx uint64, kv string, ncmoe int) Params {
	return Params{NGL: ngl, Ctx: ctx, UBatch: pl.ubatch(ctx), Parallel: max(pl.req.Parallel, 1), FlashAttn: pl.flashAttn(),
		CacheK: kv, CacheV: kv, NCPUMoE: ncmoe, OpOffload: len(pl.devs) > 0 && pl.coef.Backend(pl.devs[0].ID).OpOffload}
}

// evaluate predicts p and checks every device and the host.
// weightsFor is the split proportions for p: free memory, or one device.
func (pl *planner) weightsFor(p Params) []float64 {
	if p.Only <= 0 || p.Only > len(pl.devs) {
		return pl.split
	}
	w := make([]float64, len(pl.devs))
	w[p.Only-1] = 1
	return w
}

func (pl *planner) evaluate(p Params) eval {
	host, devs := Predict(pl.m, p, len(pl.devs), pl.weightsFor(p), pl.req.Calibration)
	fitDevs := devs
	if floor := PipelineFloorMiB(pl.m, p, len(pl.devs), pl.weightsFor(p)); floor != nil {
		// With pipeline parallelism the engine first reserves the larger
		// buffers and, when a device cannot allocate them, retries with
		// one copy (src/llama-context.cpp "retrying without pipeline
		// parallelism"). Below a device's floor it surely retries: predict
		// one copy. Above it, it may run either way: predict the pipeline
		// figures (never under), and judge the fit on one copy, which the
		// engine falls back to.
		p1 := p
		p1.SingleCopy = true
		_, single := Predict(pl.m, p1, len(pl.devs), pl.weightsFor(p), pl.req.Calibration)
		fitDevs = single
		for i, d := range pl.devs {
			if floor[i]+pl.devOverhead(d) > float64(d.FreeMiB) {
				p = p1
				host, devs = Predict(pl.m, p, len(pl.devs), pl.weightsFor(p), pl.req.Calibration)
				break
			}
		}
	}
	e := eval{p: p, fits: true, pred: Prediction{Host: host, HostFreeMiB: pl.host.AvailableMiB, Devices: []DeviceMem{}}}
	if d := pl.req.Draft; d != nil {
		// The draft model: all of it beside the target's output layer (on
		// the host for CPU runs), with its own KV at the same context.
		dp := p
		dp.NGL = d.Layers + 1
		if p.NGL == 0 || len(pl.devs) == 0 {
			dp.NGL = 0
		}
		dh, dd := Predict(d, dp, len(pl.devs), pl.weightsFor(p), Calibration{})
		e.pred.DraftHostMiB = dh.Total()
		host.ModelMiB += dh.ModelMiB
		host.ContextMiB += dh.ContextMiB
		host.ComputeMiB += dh.ComputeMiB
		e.pred.Host = host
		for i := range devs {
			devs[i].ModelMiB += dd[i].ModelMiB
			devs[i].ContextMiB += dd[i].ContextMiB
			devs[i].ComputeMiB += dd[i].ComputeMiB
			if &fitDevs[i] != &devs[i] {
				fitDevs[i].ModelMiB += dd[i].ModelMiB
				fitDevs[i].ContextMiB += dd[i].ContextMiB
				fitDevs[i].ComputeMiB += dd[i].ComputeMiB
			}
		}
	}
	var short []string
	for i, d := range pl.devs {
		dm := DeviceMem{ID: d.ID, Name: d.Name, Mem: devs[i], FreeMiB: d.FreeMiB}
		if devs[i].Total() > 0 {
			dm.OverheadMiB = pl.devOverhead(d)
		}
		e.pred.Devices = append(e.pred.Devices, dm)
		need := fitDevs[i].Total() + dm.OverheadMiB + pl.devMargin(d)
		if fitDevs[i].Total() > 0 && need > float64(d.FreeMiB) {
			e.fits = false
			short = append(short, T("fit.device-short", "device", d.ID, "need", fmt.Sprintf("%.0f", need), "free", d.FreeMiB))
		}
	}
	if pl.host.AvailableMiB > 0 {
		need := host.Total() + pl.hostMargin()
		if need > float64(pl.host.AvailableMiB) {
			e.fits = false
			short = append(short, T("fit.host-short", "need", fmt.Sprintf("%.0f", need), "free", pl.host.AvailableMiB))
		}
	}
	e.why = strings.Join(short, "; ")
	pl.tried = append(pl.tried, e)
	return e
}

// run tries, in order of preference, until a candidate fits: every layer
// on the GPUs (fullOffload), MoE experts on the CPU (expertsOnCPU), fewer
// layers (fewerLayers), the compute on the host too (hostCompute). When
// none fits, the smallest candidate shows by how much.
func (pl *planner) run() (Result, error) {
	ctxs := pl.ctxCandidates()
	var chosen *eval
	var reasons []string
	for _, step := range []func([]uint64) (*eval, []string){pl.fullOffload, pl.expertsOnCPU, pl.fewerLayers, pl.hostCompute} {
		if chosen, reasons = step(ctxs); chosen != nil {
			break
		}
	}
	res := Result{Fits: chosen != nil}
	if chosen == nil {
		// Nothing fits: report the smallest configuration so the user sees
		// by how much, and let the caller refuse or override.
		kvs := pl.kvTypes(pl.flashAttn())
		e := pl.evaluate(pl.params(pl.nglOptions()[0], ctxs[len(ctxs)-1], kvs[len(kvs)-1], 0))
		chosen = &e
		reasons = []string{T("reason.does-not-fit", "why", e.why)}
	} else {
		pl.runnerUps(chosen, ctxs)
	}
	res.Plan = pl.toPlan(chosen.p)
	res.Predicted = chosen.pred
	res.Reasons = append(pl.baseReasons(chosen.p), reasons...)
	res.Alternatives = pl.alternatives(chosen)
	return res, nil
}

// nglOptions are the -ngl values to try first: the pinned one, else all
// layers (none without devices).
func (pl *planner) nglOptions() []int {
	switch {
	case pl.req.NGL >= 0:
		return []int{pl.req.NGL}
	case len(pl.devs) == 0:
		return []int{0}
	}
	return []int{pl.m.Layers + 1}
}

// fullOffload is step 1: the pinned or full offload, largest context
// first, f16 then quantized KV; with several GPUs, one GPU that holds
// everything is tried first at each context (no inter-device copies).
func (pl *planner) fullOffload(ctxs []uint64) (*eval, []string) {
	layouts := []int{}
	if len(pl.devs) > 1 {
		for _, i := range pl.byFree() {
			layouts = append(layouts, i+1)
		}
	}
	layouts = append(layouts, 0)
	for _, ngl := range pl.nglOptions() {
		for _, ctx := range ctxs {
			for _, kv := range pl.kvTypes(pl.flashAttn()) {
				for _, only := range layouts {
					p := pl.params(ngl, ctx, kv, 0)
					p.Only = only
					if e := pl.evaluate(p); e.fits {
						if only == 0 {
							return &e, nil
						}
						d := pl.devs[only-1]
						return &e, []string{T("reason.single-gpu", "device", d.ID, "name", d.Name)}
					}
				}
			}
		}
	}
	return nil, nil
}

// expertsOnCPU is step 2 for MoE models: the experts of the first N layers
// on the CPU before dropping layers, at the smallest context.
func (pl *planner) expertsOnCPU(ctxs []uint64) (*eval, []string) {
	m := pl.m
	if len(pl.devs) == 0 || pl.req.NGL >= 0 || m.ExpertCount == 0 || !pl.caps.CPUMoE {
		return nil, nil
	}
	for n := 1; n <= m.Layers; n++ {
		for _, kv := range pl.kvTypes(pl.flashAttn()) {
			if e := pl.evaluate(pl.params(m.Layers+1, ctxs[len(ctxs)-1], kv, n)); e.fits {
				return &e, []string{T("reason.moe-cpu", "n", n)}
			}
		}
	}
	return nil, nil
}

// fewerLayers is step 3: fewer layers at the smallest context, then the
// context grown back as far as it fits.
func (pl *planner) fewerLayers(ctxs []uint64) (*eval, []string) {
	if len(pl.devs) == 0 || pl.req.NGL >= 0 {
		return nil, nil
	}
	full := pl.m.Layers + 1
	var chosen *eval
	for ngl := full - 1; ngl >= 0 && chosen == nil; ngl-- {
		for _, kv := range pl.kvTypes(pl.flashAttn()) {
			if e := pl.evaluate(pl.params(ngl, ctxs[len(ctxs)-1], kv, 0)); e.fits {
				chosen = &e
				break
			}
		}
	}
	if chosen == nil {
		return nil, nil
	}
	for _, ctx := range ctxs {
		if ctx <= chosen.p.Ctx {
			break
		}
		if e := pl.evaluate(pl.params(chosen.p.NGL, ctx, chosen.p.CacheK, 0)); e.fits {
			chosen = &e
			break
		}
	}
	return chosen, []string{T("reason.partial", "ngl", chosen.p.NGL, "n", full)}
}

// hostCompute is step 4: a GPU too small even for the compute buffer at
// -ngl 0 keeps the graph on the host as well (--no-op-offload), the
// largest context first.
func (pl *planner) hostCompute(ctxs []uint64) (*eval, []string) {
	if len(pl.devs) == 0 || pl.req.NGL > 0 || !pl.caps.NoOpOffload || !pl.params(0, ctxs[len(ctxs)-1], "f16", 0).OpOffload {
		return nil, nil
	}
	for _, ctx := range ctxs {
		for _, kv := range pl.kvTypes(pl.flashAttn()) {
			p := pl.params(0, ctx, kv, 0)
			p.OpOffload = false
			if e := pl.evaluate(p); e.fits {
				return &e, []string{T("reason.no-op-offload", "device", pl.devs[0].ID)}
			}
		}
	}
	return nil, nil
}

// runnerUps weighs, for the human output, the next smaller context and a
// quantized KV cache when they were not weighed already.
func (pl *planner) runnerUps(chosen *eval, ctxs []uint64) {
	for i, c := range ctxs {
		if c == chosen.p.Ctx && i+1 < len(ctxs) {
			pl.evaluate(pl.params(chosen.p.NGL, ctxs[i+1], chosen.p.CacheK, chosen.p.NCPUMoE))
		}
	}
	if kvs := pl.kvTypes(pl.flashAttn()); chosen.p.CacheK != kvs[len(kvs)-1] {
		pl.evaluate(pl.params(chosen.p.NGL, chosen.p.Ctx, kvs[len(kvs)-1], chosen.p.NCPUMoE))
	}
}

// byFree lists device indexes, most free memory first.
func (pl *planner) byFree() []int {
	idx := make([]int, len(pl.devs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return pl.devs[idx[a]].FreeMiB > pl.devs[idx[b]].FreeMiB })
	return idx
}

func (pl *planner) toPlan(p Params) Plan {
	out := Plan{NGL: p.NGL, Ctx: p.Ctx, UBatch: p.UBatch, CacheK: p.CacheK, CacheV: p.CacheV, NCPUMoE: p.NCPUMoE, Parallel: p.Parallel}
	if p.Only > 0 && len(pl.devs) > 1 {
		out.SplitMode, out.MainGPU = "none", p.Only-1
	}
	out.Batch = pl.coef.Batch
	if pl.req.Batch > 0 {
		out.Batch = pl.req.Batch
	}
	out.Batch = int(min(uint64(out.Batch), p.Ctx))
	out.Batch = max(out.Batch, out.UBatch)
	out.FlashAttn = "off"
	if p.FlashAttn {
		out.FlashAttn = "on"
	}
	// Generation is memory-bound: one thread per physical core; prompt
	// processing is compute-bound and uses every logical core.
	out.Threads = max(pl.host.PhysicalCores, 1)
	out.ThreadsBatch = max(pl.host.LogicalCores, out.Threads)
	if pl.req.Threads > 0 {
		out.Threads, out.ThreadsBatch = pl.req.Threads, pl.req.Threads
	}
	if len(pl.devs) > 1 && p.NGL > 0 && out.SplitMode == "" {
		pla := Place(pl.m, p.NGL, pl.split)
		out.TensorSplit = make([]int, len(pl.devs))
		for _, d := range pla.Layer {
			if d >= 0 {
				out.TensorSplit[d]++
			}
		}
		if pla.Output >= 0 {
			out.TensorSplit[pla.Output]++
		}
	}
	out.Embedding = pl.m.Embedding
	out.NoOpOffload = len(pl.devs) > 0 && p.NGL == 0 && !p.OpOffload && pl.coef.Backend(pl.devs[0].ID).OpOffload
	return out
}

func (pl *planner) baseReasons(p Params) []string {
	var r []string
	full := pl.m.Layers + 1
	switch {
	case len(pl.devs) == 0:
		r = append(r, T("reason.no-gpu"))
	case pl.req.NGL >= 0:
		r = append(r, T("reason.ngl-requested", "ngl", pl.req.NGL))
	case p.NGL >= full:
		r = append(r, T("reason.all-layers", "n", full, "blocks", pl.m.Layers))
	}
	switch {
	case pl.req.Ctx > 0:
		r = append(r, T("reason.ctx-requested", "ctx", pl.req.Ctx))
	case p.Ctx < pl.m.ContextLength:
		r = append(r, T("reason.ctx-reduced", "train", pl.m.ContextLength, "ctx", p.Ctx))
	default:
		r = append(r, T("reason.ctx-trained", "ctx", p.Ctx))
	}
	if p.CacheK == "q8_0" && pl.req.CacheType == "" {
		r = append(r, T("reason.kv-q8"))
	}
	if p.FlashAttn {
		r = append(r, T("reason.flash-attn"))
	}
	return r
}

// alternatives are the runner-ups: other evaluated candidates, nearest first.
func (pl *planner) alternatives(chosen *eval) []Alternative {
	var out []Alternative
	seen := map[string]bool{key(chosen.p): true}
	for _, e := range pl.tried {
		k := key(e.p)
		if seen[k] {
			continue
		}
		seen[k] = true
		why := T("alt.not-fit", "why", e.why)
		if e.fits {
			switch {
			case e.p.NGL < chosen.p.NGL:
				why = T("alt.fewer-layers")
			case e.p.Ctx < chosen.p.Ctx:
				why = T("alt.smaller-ctx")
			case e.p.CacheK != chosen.p.CacheK:
				why = T("alt.quant-kv")
			default:
				why = T("alt.lower")
			}
		}
		out = append(out, Alternative{Plan: pl.toPlan(e.p), Predicted: e.pred, Fits: e.fits, Why: why})
		if len(out) == 3 {
			break
		}
	}
	return out
}

func key(p Params) string {
	return fmt.Sprintf("%d/%d/%s/%d/%d", p.NGL, p.Ctx, p.CacheK, p.NCPUMoE, p.Only)
}

// check predicts plan p (a remembered one) as it is for the planner's
// devices and host, and says whether it still fits: nothing in it is
// chosen again, and the candidates the planner weighed stay as they were.
// A tensor split in p places the layers as the engine will (-ts).
func (pl *planner) check(p Plan) (Prediction, bool) {
	split, tried := pl.split, len(pl.tried)
	defer func() { pl.split, pl.tried = split, pl.tried[:tried] }()
	if len(p.TensorSplit) == len(pl.devs) && len(pl.devs) > 1 {
		pl.split = make([]float64, len(pl.devs))
		for i, n := range p.TensorSplit {
			pl.split[i] = float64(n)
		}
	}
	pr := Params{NGL: p.NGL, Ctx: p.Ctx, UBatch: p.UBatch, Parallel: max(p.Parallel, 1), FlashAttn: p.FlashAttn == "on",
		CacheK: p.CacheK, CacheV: p.CacheV, NCPUMoE: p.NCPUMoE,
		OpOffload: len(pl.devs) > 0 && pl.coef.Backend(pl.devs[0].ID).OpOffload && !p.NoOpOffload}
	if p.SplitMode == "none" {
		pr.Only = p.MainGPU + 1
	}
	e := pl.evaluate(pr)
	return e.pred, e.fits
}
