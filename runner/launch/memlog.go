// Package launch starts llama.cpp with a plan, waits until it serves,
// reads what it reports about its own memory, and stops it (and its
// children) on Ctrl-C. Log shapes:.
package launch

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Usage is memory one place (the host or one device) uses, in MiB, in
// llama.cpp's three classes (the memory breakdown's model/context/compute).
type Usage struct {
	ModelMiB   float64 `json:"model_mib"`
	ContextMiB float64 `json:"context_mib"`
	ComputeMiB float64 `json:"compute_mib"`
}

// Total is the sum of the three classes.
func (u Usage) Total() float64 { return u.ModelMiB + u.ContextMiB + u.ComputeMiB }

// Report is what the engine said about itself while loading.
type Report struct {
	Host    Usage            `json:"host"`
	Devices map[string]Usage `json:"devices,omitempty"`
	// Buffers are the raw final figures, keyed "class/buffer" (model/CPU_Mapped).
	Buffers         map[string]float64 `json:"buffers"`
	OffloadedLayers int                `json:"offloaded_layers"`
	TotalLayers     int                `json:"total_layers"`
	CtxSize         int                `json:"n_ctx,omitempty"`
	UBatch          int                `json:"n_ubatch,omitempty"`
	FlashAttn       string             `json:"flash_attn,omitempty"`
	ListenURL       string             `json:"listen_url,omitempty"`
	// SchedCopies is how many copies of the graph inputs ggml's scheduler
	// keeps ("sched_reserve: ... sched copies = 4"): 4 with pipeline
	// parallelism, 1 without; 0 when the engine did not say.
	SchedCopies int `json:"sched_copies,omitempty"`
	// PipelineRetried: the pipeline-parallel compute buffers did not fit
	// and the engine reserved them again without ("compute buffer
	// allocation failed, retrying without pipeline parallelism").
	PipelineRetried bool `json:"pipeline_retried,omitempty"`
	// Breakdown is the engine's exit-time memory table, when it printed one.
	Breakdown map[string]BreakdownRow `json:"breakdown,omitempty"`
	OOM       *OOM                    `json:"oom,omitempty"`
}

// BreakdownRow is one row of `memory breakdown [MiB]`: for a
// device total = free + self + unaccounted, self = model + context +
// compute; host rows have only self and its parts.
type BreakdownRow struct {
	Name        string `json:"name,omitempty"`
	TotalMiB    int    `json:"total_mib,omitempty"`
	FreeMiB     int    `json:"free_mib,omitempty"`
	SelfMiB     int    `json:"self_mib"`
	ModelMiB    int    `json:"model_mib"`
	ContextMiB  int    `json:"context_mib"`
	ComputeMiB  int    `json:"compute_mib"`
	Unaccounted int    `json:"unaccounted_mib,omitempty"`
}

var (
	breakdownDevRE  = regexp.MustCompile(`\|\s+-\s+(\S+)(?:\s+\(([^|]*)\))?\s+\|\s*(\d+)\s*=\s*(\d+)\s*\+\s*\(\s*(\d+)\s*=\s*(\d+)\s*\+\s*(\d+)\s*\+\s*(\d+)\s*\)\s*\+\s*(-?\d+)\s*\|`)
	breakdownHostRE = regexp.MustCompile(`\|\s+-\s+(\S+)\s+\|\s*(\d+)\s*=\s*(\d+)\s*\+\s*(\d+)\s*\+\s*(\d+)\s*\|`)
)

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// OOM describes an out-of-memory failure found in the log.
type OOM struct {
	Stage   string  `json:"stage"` // weights, kv, compute, runtime
	Device  string  `json:"device,omitempty"`
	NeedMiB float64 `json:"need_mib,omitempty"` // the failed allocation
	Line    string  `json:"line"`
}

var (
	// "load_tensors:   CPU_Mapped model buffer size =     5.51 MiB";
	// anything before the function name (timestamps, level) is ignored.
	bufferRE   = regexp.MustCompile(`(\S+)\s+(model|KV|RS|output|compute)\s+buffer size\s*=\s*([0-9.]+)\s*MiB`)
	offloadRE  = regexp.MustCompile(`offloaded (\d+)/(\d+) layers to GPU`)
	nctxRE     = regexp.MustCompile(`llama_context: n_ctx\s+=\s*(\d+)`)
	nubRE      = regexp.MustCompile(`llama_context: n_ubatch\s+=\s*(\d+)`)
	faRE       = regexp.MustCompile(`llama_context: flash_attn\s+=\s*(\S+)`)
	faAutoRE   = regexp.MustCompile(`Flash Attention was auto, set to (\w+)`)
	copiesRE   = regexp.MustCompile(`sched copies = (\d+)`)
	listenRE   = regexp.MustCompile(`listening on (http://\S+)`)
	allocMiBRE = regexp.MustCompile(`allocating ([0-9.]+) MiB on device (\d+).*(?:out of memory|failed)`)
	failBufRE  = regexp.MustCompile(`failed to allocate (\S+) buffer of size (\d+)`)
	unableRE   = regexp.MustCompile(`unable to allocate (\S+) buffer`)
)

// isHost says whether a backend buffer lives in host memory: CPU buffers
// and pinned staging (CUDA_Host, Vulkan_Host...).
func isHost(buf string) bool {
	return strings.HasPrefix(buf, "CPU") || strings.HasSuffix(buf, "_Host")
}

// rpcBufRE is an RPC worker's buffer: "RPC0[127.0.0.1:50052]" (the
// index is the RPC backend's, the same for every worker).
var rpcBufRE = regexp.MustCompile(`^RPC\d*\[(.+)\]$`)

func deviceOf(buf string) string {
	if m := rpcBufRE.FindStringSubmatch(buf); m != nil {
		return RPCDeviceKey(m[1])
	}
	return strings.TrimSuffix(buf, "_Mapped")
}

// RPCDeviceKey is the Report.Devices key of the RPC worker at endpoint
// host:port (--list-devices names an RPC device by its endpoint).
func RPCDeviceKey(endpoint string) string { return "RPC[" + endpoint + "]" }

// ParseLog reads an engine log and keeps the final figure of each buffer
// (probe runs can print earlier ones).
func ParseLog(r io.Reader) Report {
	var p LogParser
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		p.Line(sc.Text())
	}
	return p.Report()
}

// LogParser consumes log lines one at a time (the launcher feeds it live).
type LogParser struct {
	buffers  map[string]float64
	oomLines []string
	r        Report
}

// Line parses one line.
func (p *LogParser) Line(line string) {
	if p.buffers == nil {
		p.buffers = map[string]float64{}
	}
	if m := bufferRE.FindStringSubmatch(line); m != nil {
		v, err := strconv.ParseFloat(m[3], 64)
		if err == nil {
			// Buffers of one type add up: weights split into mapped ranges
			// around repacked tensors, the non-SWA and SWA KV caches, and a
			// draft model's buffers beside the target's. llamactl passes
			// --fit off, so no probe run prints figures of its own.
			p.buffers[classOf(m[2])+"/"+m[1]+"/"+m[2]] += v
		}
	}
	if strings.Contains(line, "memory_breakdown_print") {
		if m := breakdownDevRE.FindStringSubmatch(line); m != nil {
			p.breakdown(m[1], BreakdownRow{Name: m[2], TotalMiB: atoi(m[3]), FreeMiB: atoi(m[4]), SelfMiB: atoi(m[5]),
				ModelMiB: atoi(m[6]), ContextMiB: atoi(m[7]), ComputeMiB: atoi(m[8]), Unaccounted: atoi(m[9])})
		} else if m := breakdownHostRE.FindStringSubmatch(line); m != nil {
			p.breakdown(m[1], BreakdownRow{SelfMiB: atoi(m[2]), ModelMiB: atoi(m[3]), ContextMiB: atoi(m[4]), ComputeMiB: atoi(m[5])})
		}
	}
	if m := offloadRE.FindStringSubmatch(line); m != nil {
		p.r.OffloadedLayers, _ = strconv.Atoi(m[1])
		p.r.TotalLayers, _ = strconv.Atoi(m[2])
	}
	if m := nctxRE.FindStringSubmatch(line); m != nil {
		p.r.CtxSize, _ = strconv.Atoi(m[1])
	}
	if m := nubRE.FindStringSubmatch(line); m != nil {
		p.r.UBatch, _ = strconv.Atoi(m[1])
	}
	if m := faRE.FindStringSubmatch(line); m != nil {
		p.r.FlashAttn = m[1]
	}
	if m := faAutoRE.FindStringSubmatch(line); m != nil {
		p.r.FlashAttn = m[1]
	}
	if m := listenRE.FindStringSubmatch(line); m != nil {
		p.r.ListenURL = m[1]
	}
	if m := copiesRE.FindStringSubmatch(line); m != nil {
		p.r.SchedCopies, _ = strconv.Atoi(m[1])
	}
	if strings.Contains(line, "retrying without pipeline parallelism") {
		// The OOM lines before it stay: an engine that then fails is
		// retried by llamactl with a smaller plan as before.
		p.r.PipelineRetried = true
	}
	if len(p.oomLines) < 32 && detectOOM(line) != nil {
		p.oomLines = append(p.oomLines, line)
	}
}

func (p *LogParser) breakdown(id string, r BreakdownRow) {
	if p.r.Breakdown == nil {
		p.r.Breakdown = map[string]BreakdownRow{}
	}
	p.r.Breakdown[id] = r
}

func classOf(kind string) string {
	switch kind {
	case "model":
		return "model"
	case "KV", "RS":
		return "context"
	}
	// The output (logits) buffer is reserved with the compute graph.
	return "compute"
}

// Report returns the figures so far.
func (p *LogParser) Report() Report {
	r := p.r
	if len(p.oomLines) > 0 {
		r.OOM = ParseOOM(strings.Join(p.oomLines, "\n"))
	}
	r.Buffers = map[string]float64{}
	r.Devices = map[string]Usage{}
	for k, v := range p.buffers {
		parts := strings.SplitN(k, "/", 3)
		class, buf := parts[0], parts[1]
		r.Buffers[class+"/"+buf+"/"+parts[2]] = v
		u := &r.Host
		var du Usage
		if !isHost(buf) {
			du = r.Devices[deviceOf(buf)]
			u = &du
		}
		switch class {
		case "model":
			u.ModelMiB += v
		case "context":
			u.ContextMiB += v
		default:
			u.ComputeMiB += v
		}
		if !isHost(buf) {
			r.Devices[deviceOf(buf)] = du
		}
	}
	if len(r.Devices) == 0 {
		r.Devices = nil
	}
	return r
}

// detectOOM classifies an out-of-memory line (signatures, stages).
func detectOOM(line string) *OOM {
	l := strings.ToLower(line)
	if !strings.Contains(l, "out of memory") && !strings.Contains(l, "failed to allocate") && !strings.Contains(l, "unable to allocate") &&
		!strings.Contains(l, "erroroutofdevicememory") && !strings.Contains(l, "hipmalloc failed") {
		return nil
	}
	o := &OOM{Stage: "runtime", Line: strings.TrimSpace(line)}
	switch {
	case strings.Contains(l, "kv cache"):
		o.Stage = "kv"
	case strings.Contains(l, "compute") || strings.Contains(l, "gallocr"):
		o.Stage = "compute"
	case strings.Contains(l, "load_tensors") || strings.Contains(l, "loading model") || strings.Contains(l, "unable to allocate"):
		o.Stage = "weights"
	case strings.Contains(l, "cudamalloc failed") || strings.Contains(l, "alloc_buffer"):
		// The first line of a failure names the size; the stage follows on
		// the next lines, which refine it (see Refine).
		o.Stage = "alloc"
	}
	if m := allocMiBRE.FindStringSubmatch(line); m != nil {
		o.NeedMiB, _ = strconv.ParseFloat(m[1], 64)
		o.Device = "GPU" + m[2]
	}
	if m := failBufRE.FindStringSubmatch(line); m != nil {
		o.Device = m[1]
		if n, err := strconv.ParseFloat(m[2], 64); err == nil {
			o.NeedMiB = n / (1 << 20)
		}
	}
	if m := unableRE.FindStringSubmatch(line); m != nil {
		o.Device = m[1]
	}
	return o
}

// ParseOOM scans a whole failure log: the size from the first allocation
// line, the stage and device from the lines after it.
func ParseOOM(log string) *OOM {
	var first *OOM
	for _, line := range strings.Split(log, "\n") {
		o := detectOOM(line)
		if o == nil {
			continue
		}
		if first == nil {
			first = o
			continue
		}
		if first.Stage == "alloc" || first.Stage == "runtime" {
			if o.Stage != "alloc" && o.Stage != "runtime" {
				first.Stage = o.Stage
			}
		}
		if o.Device != "" && !strings.HasPrefix(o.Device, "GPU") {
			first.Device = o.Device
		}
		if first.NeedMiB == 0 {
			first.NeedMiB = o.NeedMiB
		}
	}
	if first != nil && first.Stage == "alloc" {
		first.Stage = "runtime"
	}
	return first
}
