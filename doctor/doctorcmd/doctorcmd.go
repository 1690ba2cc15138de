// Package doctorcmd is `llamactl doctor`: gather the machine (or replay a
// saved snapshot), run the checks, print what is wrong with the exact fix,
// and end with the selection a build will use.
package doctorcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/internal/buildinfo"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/paths"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/kernels"
	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/matrix"
	"github.com/llamactl/llamactl/runner/engine"
	"github.com/llamactl/llamactl/support/redact"
	"github.com/llamactl/llamactl/support/report"
)

// Schema versions the --json document (docs/doctor.md).
const Schema = 1

// Options are the command's inputs.
type Options struct {
	F           *cmdutil.Factory
	SnapshotOut string
	// Force lets --snapshot replace an existing file.
	Force  bool
	Replay string
	Checks []string
	// CheckGiven is true when --check was on the command line, even empty.
	CheckGiven bool
	ListChecks bool
	Backend    string
	Probe      bool
	Report     string
	Zip        bool
	NoRedact   bool
	// Lang is --lang: the language of the human output (zh-CN, en).
	Lang string
	// RPC are llama.cpp RPC workers (host:port) to check (--rpc).
	RPC []string
	// RPCTransferMiB is the payload of each worker's transfer test
	// (--rpc-transfer-mib; 0: no test).
	RPCTransferMiB int
	// Gather takes the snapshot of this machine (probe.Gather by default).
	Gather func(ctx context.Context) *machine.Snapshot
	// Kernels runs the --probe kernels (kernels.Run by default).
	Kernels func(ctx context.Context, s *machine.Snapshot, sel doctor.Selection) (kernels.Report, error)

	// lang is the language validate chose from --lang and the environment.
	lang string
}

// Doc is the --json document.
type Doc struct {
	Schema    int              `json:"schema"`
	Checks    []doctor.Finding `json:"checks"`
	Selection doctor.Selection `json:"selection"`
	Summary   Summary          `json:"summary"`
	Timing    Timing           `json:"timing"`
	Replayed  string           `json:"replayed,omitempty"` // the file, with --replay
	// Report is what --report wrote: its absolute path and the files in it.
	Report *report.Result `json:"report,omitempty"`
	// SnapshotFile is the absolute path --snapshot wrote.
	SnapshotFile string            `json:"snapshot_file,omitempty"`
	Snapshot     *machine.Snapshot `json:"snapshot"`
	// RPC is what --rpc learned about each worker (docs/distributed.md).
	RPC []engine.RPCWorker `json:"rpc,omitempty"`
}

// Summary counts findings by status.
type Summary struct {
	OK      int `json:"ok"`
	Warn    int `json:"warn"`
	Error   int `json:"error"`
	Skipped int `json:"skipped"`
}

// Timing is where the time went (milliseconds).
type Timing struct {
	GatherMS float64 `json:"gather_ms"`
	ChecksMS float64 `json:"checks_ms"`
	// ChecksSumMS is the sum of every check's own duration: above ChecksMS
	// when the concurrency pays off.
	ChecksSumMS float64 `json:"checks_sum_ms"`
	TotalMS     float64 `json:"total_ms"`
}

// NewCmd builds `llamactl doctor`; runF, when given, replaces the run function
// (a test captures the parsed Options with it).
func NewCmd(f *cmdutil.Factory, runF ...func(*Options) error) *cobra.Command {
	opts := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Find what is wrong with this machine's GPU toolchain, and how to fix it",
		Long: `Inspect the machine (NVIDIA driver and GPUs, CUDA toolkits, Visual Studio or gcc,
OpenCL, Vulkan, HIP, WSL, PATH order and DLLs), report every problem with the exact
commands that fix it, and select the backend, CUDA version, CMAKE_CUDA_ARCHITECTURES
and host compiler a build will use.

Language: the human report is in Simplified Chinese with --lang zh-CN (or
LLAMACTL_LANG=zh-CN, or a zh_CN/zh_SG/zh_Hans locale in LC_ALL, LC_MESSAGES or
LANG), else English. Commands in fixes are never translated, and --json output
always stays English: its IDs and texts are the stable interface.

Exit status: 0 when no check found an error (warnings allowed), 1 otherwise.`,
		Example: `  llamactl doctor
  llamactl doctor --json > doctor.json
  llamactl doctor --snapshot machine.json      # save the facts for support
  llamactl doctor --replay machine.json        # re-run the diagnosis of a saved machine
  llamactl doctor --check cuda.host-compiler
  llamactl doctor --backend opencl             # "I was told to enable OpenCL"
  llamactl doctor --lang zh-CN                 # 简体中文输出`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.CheckGiven = cmd.Flags().Changed("check")
			if err := opts.validate(); err != nil {
				return err
			}
			if len(runF) > 0 && runF[0] != nil {
				return runF[0](opts)
			}
			return run(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.SnapshotOut, "snapshot", "", "also write the machine `FILE` (JSON) for support or --replay; an existing FILE is kept unless --force")
	fl.BoolVar(&opts.Force, "force", false, "with --snapshot: replace FILE if it exists")
	fl.StringVar(&opts.Replay, "replay", "", "evaluate a saved snapshot `FILE` (or a report.json / doctor --json file) instead of this machine")
	fl.StringSliceVar(&opts.Checks, "check", nil, "run only this check `ID` (repeatable; see --list-checks)")
	fl.BoolVar(&opts.ListChecks, "list-checks", false, "list every check and exit")
	fl.StringVar(&opts.Backend, "backend", "", "the backend you intend to build: cuda|vulkan|hip|opencl|cpu (default: best for this machine)")
	fl.BoolVar(&opts.Probe, "probe", false, "also compile and run small CUDA/OpenCL kernels with the selected toolchain")
	fl.StringVar(&opts.Report, "report", "", "write a support bundle (report.json + report.md) to `PATH` (a folder, or a .zip)")
	fl.BoolVar(&opts.Zip, "zip", false, "with --report: write one zip that also holds the raw command outputs")
	fl.StringVar(&opts.Lang, "lang", "", "language of the human output: zh-CN or en (default: LLAMACTL_LANG, then LC_ALL/LC_MESSAGES/LANG); --json always stays English")
	fl.StringSliceVar(&opts.RPC, "rpc", nil, "also check these llama.cpp RPC workers `HOST:PORT,...`: reachable, latency, protocol version, devices and memory")
	fl.IntVar(&opts.RPCTransferMiB, "rpc-transfer-mib", 8, "with --rpc: measure each worker's transfer rate with `MIB` MiB sent and read back (at most half its free memory; 0: do not measure)")
	fl.BoolVar(&opts.NoRedact, "no-redact", false, "with --report: keep user names, host names and ids (for your own use only)")
	return cmd
}

var backends = []string{"", "auto", "cuda", "vulkan", "hip", "opencl", "cpu"}

// validate checks the flags and their combinations before anything runs
// (NewCmd calls it in RunE, before runF or run): --lang, --backend (made
// lower case), --probe with --replay, --zip/--no-redact without --report,
// --check IDs (trimmed), --force without --snapshot, and a --snapshot
// FILE that exists. --list-checks ignores the other flags.
func (o *Options) validate() error {
	l, err := chooseLang(o.Lang, o.F.Getenv)
	if err != nil {
		return err
	}
	o.lang = l
	if o.ListChecks {
		return nil
	}
	o.Backend = strings.ToLower(strings.TrimSpace(o.Backend))
	if !slices.Contains(backends, o.Backend) {
		return cmdutil.UsageErrorf("unknown backend %q: choose cuda, vulkan, hip, opencl or cpu", o.Backend)
	}
	if o.Probe && o.Replay != "" {
		return cmdutil.UsageErrorf("--probe runs kernels on this machine and cannot be combined with --replay")
	}
	if (o.Zip || o.NoRedact) && o.Report == "" {
		return cmdutil.UsageErrorf("--zip and --no-redact go with --report PATH (for example: llamactl doctor --report report.zip --zip)")
	}
	if err := validateChecks(o); err != nil {
		return err
	}
	if o.RPCTransferMiB < 0 || o.RPCTransferMiB > 1024 {
		return cmdutil.UsageErrorf("--rpc-transfer-mib %d: give 0 (no transfer test) to 1024", o.RPCTransferMiB)
	}
	if o.Force && o.SnapshotOut == "" {
		return cmdutil.UsageErrorf("--force goes with --snapshot FILE: it lets the snapshot replace an existing FILE")
	}
	if o.SnapshotOut != "" && !o.Force {
		// The file may be the customer's snapshot a support engineer meant
		// to read (--replay); checked before a gather of several seconds.
		if _, err := os.Lstat(o.SnapshotOut); err == nil {
			return cmdutil.UsageErrorf("%s already exists and --snapshot does not overwrite it (to read it: llamactl doctor --replay %s). Replace it with: llamactl doctor --snapshot %s --force, or choose another name", o.SnapshotOut, o.SnapshotOut, o.SnapshotOut)
		}
	}
	return nil
}

// run is doctor in named steps: take the snapshot (gather or --replay),
// run the checks and select the build, probe kernels (--probe), save the
// snapshot (--snapshot), check RPC workers (--rpc), write the support
// bundle (--report), then print. The flags were checked by validate.
func run(ctx context.Context, o *Options) error {
	if ctx == nil {
		ctx = context.Background()
	}
	f := o.F
	l := o.lang
	if !f.IO.JSON {
		l = shownLang(l, f.IO)
	}
	tr := doctor.NewTranslator(l)
	if o.ListChecks {
		return listChecks(f, tr)
	}
	t0 := time.Now()
	s, err := o.snapshot(ctx)
	if err != nil {
		return err
	}
	tGather := time.Since(t0)
	t1 := time.Now()
	findings := doctor.Run(ctx, s, doctor.Options{Only: o.Checks, Backend: o.Backend})
	sel := doctor.SelectFor(s, o.Backend)
	tChecks := time.Since(t1)
	if o.Probe {
		pf, err := runKernels(ctx, o, s, sel)
		if err != nil {
			return err
		}
		findings = append(findings, pf...)
	}
	if o.SnapshotOut != "" {
		if err := writeJSONFile(o.SnapshotOut, s); err != nil {
			return unwritable("snapshot", o.SnapshotOut, err, "llamactl doctor --snapshot "+suggestName(o.SnapshotOut, "machine.json"))
		}
	}
	doc := o.newDoc(s, findings, sel)
	doc.Timing = Timing{GatherMS: ms(tGather), ChecksMS: ms(tChecks), ChecksSumMS: ms(checksSum(findings)), TotalMS: ms(time.Since(t0))}
	rpcBad := o.checkRPC(ctx, &doc)
	if err := o.writeReport(s, &doc); err != nil {
		return err
	}
	if err := o.print(doc, tr); err != nil {
		return err
	}
	if doctor.HasErrors(findings) || rpcBad {
		return cmdutil.Exit(cmdutil.ExitFindings)
	}
	return nil
}

// snapshot is the machine's facts: --replay's file, else a gather of this
// machine; either way with every secret scrubbed, once, by the report's
// own redaction (support/redact): no secret leaves this command, whatever
// the variables' names promise (--snapshot, --json, --report).
func (o *Options) snapshot(ctx context.Context) (*machine.Snapshot, error) {
	var s *machine.Snapshot
	if o.Replay != "" {
		var err error
		if s, err = machine.Load(o.Replay); err != nil {
			return nil, cmdutil.UsageError(err)
		}
	} else {
		gather := o.Gather
		if gather == nil {
			gather = func(ctx context.Context) *machine.Snapshot {
				d := probe.System(o.F.Env())
				d.Version = buildinfo.Get().Version
				return probe.Gather(ctx, d)
			}
		}
		s = gather(ctx)
	}
	if err := scrubSecrets(s, environ(o.F)); err != nil {
		return nil, cmdutil.Errorf(cmdutil.ExitInternal, "redacting the snapshot: %v", err)
	}
	return s, nil
}

// newDoc is the --json document of the findings, with their summary.
func (o *Options) newDoc(s *machine.Snapshot, findings []doctor.Finding, sel doctor.Selection) Doc {
	doc := Doc{Schema: Schema, Checks: findings, Selection: sel, Snapshot: s, Replayed: o.Replay}
	if o.SnapshotOut != "" {
		doc.SnapshotFile = absPath(o.SnapshotOut)
	}
	if doc.Checks == nil {
		doc.Checks = []doctor.Finding{}
	}
	for _, fd := range findings {
		switch fd.Status {
		case doctor.OK:
			doc.Summary.OK++
		case doctor.Warn:
			doc.Summary.Warn++
		case doctor.Error:
			doc.Summary.Error++
		default:
			doc.Summary.Skipped++
		}
	}
	return doc
}

// checksSum is the sum of the checks' own durations (the findings of one
// check share its duration).
func checksSum(findings []doctor.Finding) time.Duration {
	var sum time.Duration
	seen := map[string]bool{}
	for _, fd := range findings {
		if !seen[fd.ID] {
			seen[fd.ID] = true
			sum += fd.Duration
		}
	}
	return sum
}

// checkRPC checks the --rpc workers into doc; an incompatible one counts
// as an error and makes it true.
func (o *Options) checkRPC(ctx context.Context, doc *Doc) (bad bool) {
	if len(o.RPC) == 0 {
		return false
	}
	doc.RPC = probeRPC(ctx, o)
	for _, w := range doc.RPC {
		if !w.Compatible {
			bad = true
			doc.Summary.Error++
		}
	}
	return bad
}

// writeReport writes the --report bundle and records it in doc.
func (o *Options) writeReport(s *machine.Snapshot, doc *Doc) error {
	if o.Report == "" {
		return nil
	}
	f := o.F
	r, err := report.Write(report.Options{Path: o.Report, Zip: o.Zip, Redact: !o.NoRedact, Snapshot: s, Doctor: *doc,
		Llamactl: buildinfo.Get(), Env: environ(f), Stderr: f.IO.ErrOut, Now: f.Now})
	if err != nil {
		var leak *report.LeakError
		if errors.As(err, &leak) {
			return cmdutil.Errorf(cmdutil.ExitInternal, "%v", err)
		}
		var werr *report.WriteError
		if errors.As(err, &werr) {
			next := "llamactl doctor --report " + suggestName(o.Report, "llamactl-report")
			if o.Zip {
				next = "llamactl doctor --report " + suggestName(o.Report, "llamactl-report.zip") + " --zip"
			}
			return unwritable("support report", o.Report, werr.Err, next)
		}
		return cmdutil.Errorf(cmdutil.ExitInternal, "could not write the report to %s: %v", o.Report, err)
	}
	r.Path = absPath(r.Path)
	doc.Report = &r
	return nil
}

// print writes the --json document, or the human report (render.go) with
// where --snapshot and --report wrote.
func (o *Options) print(doc Doc, tr *doctor.Translator) error {
	f := o.F
	if f.IO.JSON {
		return ui.WriteJSON(f.IO.Out, doc)
	}
	render(f.IO, doc, len(o.Checks) > 0, tr)
	renderRPC(f.IO, doc.RPC, tr)
	if o.SnapshotOut != "" {
		fmt.Fprintf(f.IO.Out, "\n%s\n", tr.UI("snapshot-written", "path", doc.SnapshotFile, "arg", o.SnapshotOut))
	}
	if rep := doc.Report; rep != nil {
		how := tr.UI("report.redacted")
		if !rep.Redacted {
			how = tr.UI("report.not-redacted")
		}
		files := rep.Files
		if len(files) > 3 {
			files = append(files[:2:2], tr.UI("report.more", "count", fmt.Sprint(len(rep.Files)-2)))
		}
		fmt.Fprintf(f.IO.Out, "\n%s\n", tr.UI("report-written", "path", rep.Path, "files", strings.Join(files, ", "), "how", how))
	}
	return nil
}

// validateChecks refuses an empty --check (it would silently run every
// check) and an ID that is not in the catalog.
func validateChecks(o *Options) error {
	const list = "list the check IDs with: llamactl doctor --list-checks"
	if o.CheckGiven && len(o.Checks) == 0 {
		return cmdutil.UsageErrorf("--check needs a check ID (for example --check cuda.host-compiler); %s", list)
	}
	for i, id := range o.Checks {
		id = strings.TrimSpace(id)
		if id == "" {
			return cmdutil.UsageErrorf("--check has an empty check ID; %s", list)
		}
		o.Checks[i] = id
	}
	if err := (doctor.Options{Only: o.Checks}).Validate(); err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	return nil
}

// unwritable is the usage error for an output path the user gave that
// cannot be written (missing parent, read-only, /proc, a file in the way):
// the user's input, not a llamactl failure.
func unwritable(what, path string, err error, next string) error {
	return cmdutil.UsageErrorf("could not write the %s to %s: %v. Choose a folder you can write to (your home or current folder), for example: %s", what, path, err, next)
}

// suggestName is the next command's output name: the one the user gave,
// without its folder, so it lands in the current folder.
func suggestName(path, def string) string {
	b := filepath.Base(path)
	if b == "." || b == string(filepath.Separator) || b == "" {
		b = def
	}
	return b
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// runKernels runs the kernel probes with the selection and turns their
// findings into doctor findings (kernels.DoctorFindings keeps the failure
// ID as facts.failure_id).
func runKernels(ctx context.Context, o *Options, s *machine.Snapshot, sel doctor.Selection) ([]doctor.Finding, error) {
	ch := sel
	fallback := ""
	if ch.CUDAArchitectures == "" && ch.Toolkit != nil {
		// No NVIDIA GPU to build for: compile for one architecture the
		// toolkit targets anyway, so the probe still proves nvcc and its host
		// compiler (the load stage then reports the missing device).
		fallback = fallbackArch(ch.Toolkit)
		ch.CUDAArchitectures = fallback
	}
	k := o.Kernels
	if k == nil {
		k = func(ctx context.Context, s *machine.Snapshot, sel doctor.Selection) (kernels.Report, error) {
			return kernels.Run(ctx, o.F.Env(), s, ch, kernels.Options{})
		}
	}
	rep, err := k(ctx, s, sel)
	if ie := (*kernels.InputError)(nil); errors.As(err, &ie) {
		return nil, cmdutil.UsageError(err)
	} else if err != nil {
		return nil, err
	}
	s.Probes = kernels.ToSnapshot(rep.Stages)
	out := kernels.DoctorFindings(rep.Findings)
	for i := range out {
		if out[i].ID == "probe.cuda" && fallback != "" && out[i].Status != doctor.Skipped {
			out[i].Details = append([]string{doctor.ReasonText("probe-fallback-arch", "archs", fallback)}, out[i].Details...)
		}
	}
	return out, nil
}

// fallbackArch is the newest real architecture the toolkit's nvcc lists
// (--list-gpu-arch), else the newest the matrix knows for its version; ""
// when neither is known (the probe then skips).
func fallbackArch(tk *machine.CUDAToolkit) string {
	best := 0
	for _, a := range tk.GPUArchs {
		if n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(a, "compute_"), "sm_")); err == nil && n > best {
			best = n
		}
	}
	if best == 0 {
		if t, ok := matrix.Default().Toolkit(tk.Version); ok {
			for _, sm := range t.SM {
				best = max(best, sm)
			}
		}
	}
	if best == 0 {
		return ""
	}
	return strconv.Itoa(best) + "-real"
}

func writeJSONFile(path string, v any) error {
	var b bytes.Buffer
	if err := ui.WriteJSON(&b, v); err != nil {
		return err
	}
	return paths.WriteFileAtomicPerm(path, b.Bytes(), 0o644)
}

// environ is the real environment as a map, for the report's leak self-check.
// scrubSecrets replaces every secret in s: secret-named variables, the
// values of the environment's secrets wherever they appear, and token
// patterns (URL passwords, keys, secret assignments in flags).
func scrubSecrets(s *machine.Snapshot, env map[string]string) error {
	if s == nil {
		return nil
	}
	// Only the values of secret-named variables are secrets as a whole here:
	// a token inside an innocent variable (NVCC_APPEND_FLAGS) is cut out by
	// the token patterns, and the rest of its value stays for the checks.
	secrets := map[string]string{}
	for k, v := range env {
		if redact.SecretName(k) {
			secrets[k] = v
		}
	}
	red := redact.New(redact.Known{Secrets: secrets})
	return redact.Document(s, red.Secrets)
}

func environ(f *cmdutil.Factory) map[string]string {
	m := map[string]string{}
	if f.Environ == nil {
		return m
	}
	for _, kv := range f.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}
