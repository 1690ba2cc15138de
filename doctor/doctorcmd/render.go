package doctorcmd

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/finding"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/kernels"
	"github.com/llamactl/llamactl/machine"
)

// render prints the flutter-doctor-like report: findings grouped by
// catalog section, each problem followed by its fix, then the selection.
func render(io *ui.IOStreams, d Doc, only bool, tr *doctor.Translator) {
	p := ui.NewPrinter(io)
	s := d.Snapshot
	tr = tr.ForSnapshot(s) // the matrix's lines in the report's language
	title := "llamactl doctor"
	if s != nil {
		title += fmt.Sprintf(" — %s (%s/%s)", orDash(s.OS.Name), s.OS.GOOS, s.OS.Arch)
	}
	if d.Replayed != "" {
		title += ", replaying " + d.Replayed
	}
	p.Heading(title)

	section := ""
	hidden := 0
	opts := ui.FindingOptions{Translator: reportTranslator(tr), Verbose: io.Verbose, Indent: "  ", Facts: true}
	for _, f := range d.Checks {
		if f.Status == doctor.Skipped && !io.Verbose && !only {
			hidden++
			continue
		}
		info, _ := doctor.Info(f.ID)
		goos := ""
		if s != nil {
			goos = s.OS.GOOS
		}
		if sec := sectionTitle(tr, info.Section, f.ID, goos); sec != section {
			section = sec
			p.Println()
			p.Println(p.Bold(section))
		}
		p.Finding(f, opts)
	}

	p.Println()
	p.Println(p.Bold(tr.UI("selection")))
	sel := d.Selection
	rows := [][]string{{tr.UI("row.backend"), sel.Backend}}
	if sel.Requested != "" {
		rows = append(rows, []string{tr.UI("row.asked-for"), sel.Requested})
	}
	for _, g := range sel.GPUs {
		rows = append(rows, []string{tr.UI("row.gpu", "index", fmt.Sprint(g.Index)),
			tr.UI("row.gpu-value", "name", g.Name, "cc", orDash(g.ComputeCapability), "arch", orDash(g.Architecture))})
	}
	if sel.CUDA != "" {
		rows = append(rows, []string{"CUDA", sel.CUDA})
	}
	if sel.Toolkit != nil {
		rows = append(rows, []string{tr.UI("row.toolkit"), sel.Toolkit.Version + " (" + sel.Toolkit.NVCC + ")"})
	}
	if sel.CUDAArchitectures != "" {
		rows = append(rows, []string{"CMAKE_CUDA_ARCHITECTURES", sel.CUDAArchitectures})
	}
	if sel.HostCompiler != "" {
		rows = append(rows, []string{tr.UI("row.host-compiler"), sel.HostCompiler})
	}
	if sel.MSVCToolset != "" {
		rows = append(rows, []string{tr.UI("row.msvc-toolset"), sel.MSVCToolset + " (-vcvars_ver=" + sel.MSVCToolset + ")"})
	}
	if sel.VCVarsAll != "" {
		rows = append(rows, []string{"vcvarsall", sel.VCVarsAll})
	}
	for i := range rows {
		rows[i][0] = "  " + rows[i][0]
	}
	p.Table(nil, rows)
	for _, r := range sel.Reasons {
		p.Println("  • " + tr.Reason(r))
	}

	p.Println()
	sum := tr.UI("summary.counts", "ok", fmt.Sprint(d.Summary.OK), "warnings", tr.Count("warnings", d.Summary.Warn), "errors", tr.Count("errors", d.Summary.Error))
	if hidden > 0 {
		sum = tr.UI("summary.hidden", "counts", sum, "hidden", tr.Count("hidden", hidden))
	}
	if io.Verbose {
		sum += tr.UI("summary.timing", "gather", fmt.Sprintf("%.0f", d.Timing.GatherMS), "checks", fmt.Sprintf("%.1f", d.Timing.ChecksMS),
			"sum", fmt.Sprintf("%.1f", d.Timing.ChecksSumMS), "total", fmt.Sprintf("%.0f", d.Timing.TotalMS))
	}
	switch {
	case d.Summary.Error > 0:
		p.Line(ui.Err, tr.UI("end.errors", "summary", sum))
	case d.Summary.Warn > 0:
		p.Line(ui.Warn, tr.UI("end.warnings", "summary", sum))
	default:
		p.Line(ui.OK, tr.UI("end.ok", "summary", sum))
	}
	if io.Verbose && s != nil {
		renderFacts(p, s, tr)
	}
	if io.Verbose && s != nil && s.Timings != nil && len(s.Timings.Gatherers) > 0 {
		p.Println()
		var total time.Duration
		for _, g := range s.Timings.Gatherers {
			total += g.Duration
		}
		p.Println(p.Bold(tr.UI("facts.gatherers", "wall", fmt.Sprint(s.Timings.Wall.Round(time.Millisecond)), "sum", fmt.Sprint(total.Round(time.Millisecond)))))
		var rows [][]string
		for _, g := range s.Timings.Gatherers {
			rows = append(rows, []string{"  " + g.Name, fmt.Sprint(g.Duration.Round(time.Millisecond))})
		}
		p.Table(nil, rows)
	}
}

// reportTranslator puts a finding in the report's language and wording:
// its texts by message ID (doctor's catalog, or the probe's for probe.*
// findings), "<check title>: <summary>" (a skipped check: its title and
// why; a skipped probe, which has no title or reason: its summary), and
// each detail line translated when it is a known reason.
func reportTranslator(tr *doctor.Translator) finding.Translator {
	kt := kernels.NewTranslator(tr.Lang)
	ft := failures.Default().Translator(tr.Lang)
	return finding.TranslatorFunc(func(f finding.Finding) finding.Finding {
		info, _ := doctor.Info(f.ID)
		probe := strings.HasPrefix(f.ID, "probe.")
		orig := f
		if probe {
			f = kt.Finding(f)
		} else {
			f.Args = stageArgs(kt, f.Args)
			f = tr.Finding(f)
		}
		f = kbTexts(ft, orig, f)
		title := tr.Title(info)
		if f.Status == doctor.Skipped {
			f.Fix = nil // a check that did not run has nothing to fix (a skipped probe's fix names probe's flags)
		}
		switch {
		case f.Status == doctor.Skipped && f.SkippedBecause != "":
			f.Summary = tr.UI("skipped", "title", title, "reason", f.SkippedBecause)
		case title != "":
			f.Summary = tr.UI("finding", "title", title, "summary", f.Summary)
		}
		details := make([]string, len(f.Details))
		for i, dl := range f.Details {
			if probe {
				dl = kt.Detail(dl)
			}
			details[i] = tr.Reason(dl)
		}
		f.Details = details
		return f
	})
}

func sectionTitle(tr *doctor.Translator, sec, id, goos string) string {
	if t := tr.SectionTitle(sec, goos); t != "" {
		return t
	}
	if strings.HasPrefix(id, "probe") {
		return tr.UI("section.probes")
	}
	return tr.UI("section.other")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// ListDoc is the --list-checks --json document.
type ListDoc struct {
	Schema int                `json:"schema"`
	Checks []doctor.CheckInfo `json:"checks"`
}

func listChecks(f *cmdutil.Factory, tr *doctor.Translator) error {
	cat := doctor.Catalog()
	if f.IO.JSON {
		return ui.WriteJSON(f.IO.Out, ListDoc{Schema: Schema, Checks: cat})
	}
	p := ui.NewPrinter(f.IO)
	var rows [][]string
	for _, c := range cat {
		rows = append(rows, []string{c.ID, strings.Join(c.Platforms, ","), tr.Title(c)})
	}
	p.Table([]string{tr.UI("list.header.id"), tr.UI("list.header.platforms"), tr.UI("list.header.title")}, rows)
	p.Println()
	p.Println(tr.UI("list.footer"))
	return nil
}

// renderFacts prints the raw facts the checks read (--verbose), its
// headings and words in the report's language (values stay as recorded).
func renderFacts(p *ui.Printer, s *machine.Snapshot, tr *doctor.Translator) {
	p.Println()
	p.Println(p.Bold(tr.UI("facts.heading")))
	var rows [][]string
	add := func(k, v string) {
		if v != "" {
			rows = append(rows, []string{"  " + k, v})
		}
	}
	add(tr.UI("facts.row.os"), strings.TrimSpace(fmt.Sprintf("%s %s %s/%s glibc %s", s.OS.Name, s.OS.Version, s.OS.GOOS, s.OS.Arch, s.OS.Glibc)))
	add("nvml", strings.TrimSpace(fmt.Sprintf("%s %s", s.NVIDIA.NVMLStatus, s.NVIDIA.NVMLLibrary)))
	if s.NVIDIA.DriverVersion != "" || s.NVIDIA.SMIDriverVersion != "" {
		api := orDash(s.NVIDIA.CUDADriverAPI)
		if s.NVIDIA.CUDADriverAPI == "" && s.NVIDIA.CUDADriverAPIStatus != "" {
			api = tr.UI("facts.driver-api-unknown", "value", map[string]string{"err": "ERR!", "n/a": "N/A"}[s.NVIDIA.CUDADriverAPIStatus])
		}
		add(tr.UI("facts.row.driver"), tr.UI("facts.driver", "version", orDash(s.NVIDIA.DriverVersion), "api", api, "smi", orDash(s.NVIDIA.SMIDriverVersion)))
	}
	add("nvidia-smi", s.NVIDIA.SMIStatus)
	for _, g := range s.NVIDIA.GPUs {
		add(tr.UI("facts.row.gpu", "index", fmt.Sprint(g.Index)), tr.UI("facts.gpu", "name", g.Name, "cc", orDash(g.ComputeCapability),
			"free", fmt.Sprint(g.FreeMiB), "total", fmt.Sprint(g.TotalMiB), "bus", g.PCIBusID))
	}
	for _, tk := range s.Toolkits {
		add(tr.UI("facts.row.cuda", "version", tk.Version), tr.UI("facts.cuda", "nvcc", tk.NVCC, "found", strings.Join(tk.Found, ", ")))
	}
	for _, c := range s.Compilers {
		add(c.Kind+" "+c.Version, c.Path)
	}
	for _, m := range s.MSVC {
		add("msvc "+m.ProductVersion, tr.UI("facts.msvc", "path", m.Path, "cl", orDash(m.ClVersion), "toolsets", strings.Join(m.Toolsets, ","), "vctools", boolText(tr, m.HasVCTools)))
	}
	for _, pl := range s.OpenCL.Platforms {
		for _, d := range pl.Devices {
			add("opencl", fmt.Sprintf("%s: %s [%s] %s", pl.Name, d.Name, d.Type, d.OpenCLCVersion))
		}
	}
	if len(s.OpenCL.Platforms) == 0 {
		add("opencl", strings.TrimSpace(s.OpenCL.Status+" "+s.OpenCL.Error))
	}
	for _, d := range s.Vulkan.Devices {
		add("vulkan", fmt.Sprintf("%s [%s]", d.Name, d.Type))
	}
	if len(s.Vulkan.Devices) == 0 {
		add("vulkan", s.Vulkan.Status)
	}
	if v := s.Vulkan; len(v.Headers) > 0 || v.GlslcVersion != "" || v.LoaderVersion != "" || v.SDKVersion != "" {
		var hs []string
		for _, h := range v.Headers {
			hs = append(hs, fmt.Sprintf("%d (%s, %s)", h.Version, h.IncludeDir, h.Origin))
		}
		add(tr.UI("facts.row.vulkan-toolchain"), tr.UI("facts.vulkan-toolchain", "headers", orDash(strings.Join(hs, ", ")), "glslc", orDash(v.GlslcVersion),
			"spirv", orDash(v.SPIRVHeadersVersion), "loader", orDash(v.LoaderVersion), "sdk", orDash(v.SDKVersion)))
	}
	add("hip", strings.TrimSpace(fmt.Sprintf("%s %s %s", s.HIP.Status, s.HIP.Version, strings.Join(s.HIP.GFX, ","))))
	add("wsl", tr.UI("facts.wsl", "wsl", boolText(tr, s.WSL.IsWSL), "version", fmt.Sprint(s.WSL.Version), "libcuda", strings.Join(s.WSL.LibcudaPaths, ",")))
	for _, k := range sortedKeys(toolVersions(s)) {
		add(k, toolVersions(s)[k])
	}
	for _, e := range s.ProbeErrors {
		add(tr.UI("facts.row.probe-error"), e.Probe+": "+e.Error)
	}
	if len(s.Raw) > 0 {
		add(tr.UI("facts.row.recorded"), tr.UI("facts.recorded", "count", fmt.Sprint(len(s.Raw))))
	}
	p.Table(nil, rows)
}

// stageArgs is args with a probe stage's name ({stage} of nv.cuda-init) in
// kt's language.
func stageArgs(kt *kernels.Translator, args []string) []string {
	out := append([]string(nil), args...)
	for i := 0; i+1 < len(out); i += 2 {
		if out[i] == "stage" {
			out[i+1] = kt.Stage(out[i+1])
		}
	}
	return out
}

// kbTexts puts the failure knowledge base's texts that a check copied into
// its finding (nv.cuda-init: a recorded probe failure's cause as a detail,
// its fix) in ft's language; orig is the English finding whose {id} names
// the failure, f its translation so far.
func kbTexts(ft *failures.Translator, orig, f finding.Finding) finding.Finding {
	var id string
	for i := 0; i+1 < len(orig.Args); i += 2 {
		if orig.Args[i] == "id" {
			id = orig.Args[i+1]
		}
	}
	e, ok := failures.Default().Entry(id)
	if !ok || ft.Lang() == lang.EN {
		return f
	}
	tf := ft.Finding(failures.Finding{ID: e.ID, Title: e.Title, Cause: e.Cause, Fix: e.Fix})
	details := make([]string, len(f.Details))
	for i, d := range f.Details {
		if d == e.Cause {
			d = tf.Cause
		}
		details[i] = d
	}
	f.Details = details
	if orig.Fix != nil && f.Fix != nil && orig.Fix.Text == e.Fix {
		fx := *f.Fix // the commands slice is shared, never changed
		fx.Text = tf.Fix
		f.Fix = &fx
	}
	return f
}

// boolText is true or false in the report's language.
func boolText(tr *doctor.Translator, b bool) string { return tr.UI("facts.bool." + fmt.Sprint(b)) }

func toolVersions(s *machine.Snapshot) map[string]string {
	m := map[string]string{}
	for k, t := range s.BuildTools {
		m[k] = strings.TrimSpace(t.Version + " " + t.Path + " " + t.Error)
	}
	return m
}
