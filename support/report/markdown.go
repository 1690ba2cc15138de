package report

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llamactl/llamactl/internal/jsonout"
)

// check is the part of a doctor finding report.md shows. Doctor's document
// is read loosely so the report survives doctor adding fields.
type check struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Summary string `json:"summary"`
	Details []string
	Fix     *struct {
		Text     string   `json:"text"`
		Commands []string `json:"commands"`
	} `json:"fix"`
}

type selection struct {
	Backend           string `json:"backend"`
	CUDA              string `json:"cuda"`
	CUDAArchitectures string `json:"cuda_architectures"`
	HostCompiler      string `json:"host_compiler"`
	MSVCToolset       string `json:"msvc_toolset"`
}

func checks(doc *Doc) []check {
	var cs []check
	if len(doc.Findings) > 0 {
		_ = json.Unmarshal(doc.Findings, &cs)
	}
	return cs
}

func summarize(doc *Doc) Summary {
	var s Summary
	if sn := doc.Snapshot; sn != nil {
		s.OS = strings.TrimSpace(strings.Join(nonEmpty(sn.OS.Name, sn.OS.Version, "("+sn.OS.Arch+")"), " "))
		if sn.WSL.IsWSL {
			s.OS += fmt.Sprintf(", WSL%d", sn.WSL.Version)
		}
		var gpus []string
		for _, g := range sn.NVIDIA.GPUs {
			d := g.Name
			if g.ComputeCapability != "" {
				d += " (CC " + g.ComputeCapability
				if g.TotalMiB > 0 {
					d += fmt.Sprintf(", %d MiB", g.TotalMiB)
				}
				d += ")"
			}
			gpus = append(gpus, d)
		}
		for _, p := range sn.OpenCL.Platforms {
			for _, d := range p.Devices {
				if d.Type == "GPU" {
					gpus = append(gpus, d.Name+" (OpenCL)")
				}
			}
		}
		s.GPUs = strings.Join(gpus, "; ")
		if sn.NVIDIA.DriverVersion != "" {
			s.Driver = sn.NVIDIA.DriverVersion
			if sn.NVIDIA.CUDADriverAPI != "" {
				s.Driver += " (CUDA " + sn.NVIDIA.CUDADriverAPI + ")"
			}
		} else if sn.NVIDIA.NVMLStatus != "" {
			s.Driver = "none (" + sn.NVIDIA.NVMLStatus + ")"
		}
		var tks []string
		for _, t := range sn.Toolkits {
			tks = append(tks, t.Version)
		}
		s.CUDA = strings.Join(tks, ", ")
		var cc []string
		for _, m := range sn.MSVC {
			if m.ClVersion != "" {
				cc = append(cc, "MSVC "+m.ClVersion)
			}
		}
		for _, c := range sn.Compilers {
			cc = append(cc, c.Kind+" "+c.Version)
		}
		s.Compilers = strings.Join(cc, ", ")
	}
	var sel selection
	if len(doc.Selection) > 0 && json.Unmarshal(doc.Selection, &sel) == nil && sel.Backend != "" {
		s.Backend = strings.Join(nonEmpty(sel.Backend, prefix("CUDA ", sel.CUDA), prefix("archs ", sel.CUDAArchitectures),
			prefix("host compiler ", sel.HostCompiler), prefix("MSVC toolset ", sel.MSVCToolset)), ", ")
	}
	for _, c := range checks(doc) {
		switch c.Status {
		case "error":
			s.Errors++
		case "warn", "warning":
			s.Warnings++
		}
	}
	return s
}

func nonEmpty(vs ...string) []string {
	var out []string
	for _, v := range vs {
		if v != "" && v != "()" {
			out = append(out, v)
		}
	}
	return out
}

func prefix(p, v string) string {
	if v == "" {
		return ""
	}
	return p + v
}

// Markdown renders report.md: a summary table first, then what needs action,
// then details in collapsible sections (report.json has everything).
func Markdown(doc *Doc) string {
	var b strings.Builder
	b.WriteString("# llamactl support report\n\n")
	if doc.Redaction.Applied {
		b.WriteString("Redacted: user names, host names, hardware identifiers, addresses and secrets are replaced by placeholders such as `<user>`, `<host>`, `<gpu-uuid-1>`, `<secret>`.\n\n")
	} else {
		b.WriteString("> **WARNING: NOT REDACTED.** This report contains the user name, host name, hardware identifiers and environment of the machine. Do not post it publicly.\n\n")
	}
	s := doc.Summary
	rows := [][2]string{
		{"llamactl", strings.TrimSpace(doc.Llamactl.Version + " " + short(doc.Llamactl.Commit))},
		{"generated", doc.GeneratedAt.Format("2006-01-02 15:04 UTC")},
		{"OS", s.OS}, {"GPUs", s.GPUs}, {"NVIDIA driver", s.Driver}, {"CUDA toolkits", s.CUDA},
		{"compilers", s.Compilers}, {"selection", s.Backend},
		{"doctor", fmt.Sprintf("%d error(s), %d warning(s)", s.Errors, s.Warnings)},
	}
	b.WriteString("| | |\n|---|---|\n")
	for _, r := range rows {
		if r[1] == "" {
			r[1] = "-"
		}
		fmt.Fprintf(&b, "| %s | %s |\n", r[0], cell(r[1]))
	}
	cs := checks(doc)
	var act []check
	for _, c := range cs {
		if c.Status == "error" || c.Status == "warn" || c.Status == "warning" {
			act = append(act, c)
		}
	}
	if len(act) > 0 {
		b.WriteString("\n## Findings\n\n| status | check | summary |\n|---|---|---|\n")
		for _, c := range act {
			fmt.Fprintf(&b, "| %s | `%s` | %s |\n", c.Status, c.ID, cell(c.Summary))
		}
		for _, c := range act {
			fmt.Fprintf(&b, "\n### `%s`: %s\n\n", c.ID, c.Summary)
			if c.Fix != nil {
				if c.Fix.Text != "" {
					b.WriteString(c.Fix.Text + "\n")
				}
				if len(c.Fix.Commands) > 0 {
					b.WriteString("\n```\n" + strings.Join(c.Fix.Commands, "\n") + "\n```\n")
				}
			}
		}
	}
	for i, bd := range doc.Builds {
		if i == 0 {
			b.WriteString("\n## Recent builds\n")
		}
		title := fmt.Sprintf("build %d", i+1)
		if bd.Diagnosis != nil && len(bd.Diagnosis.Findings) > 0 {
			var ids []string
			for _, f := range bd.Diagnosis.Findings {
				ids = append(ids, "`"+f.ID+"`")
			}
			title += ": " + strings.Join(ids, ", ")
			b.WriteString("\n")
			for _, f := range bd.Diagnosis.Findings {
				fmt.Fprintf(&b, "- `%s` (line %s of the log tail): %s. %s\n", f.ID, lines(f.Lines), f.Title, f.Fix)
			}
		}
		if bd.Error != "" {
			fmt.Fprintf(&b, "\n%s: %s\n", title, bd.Error)
		}
		if bd.LogTail != "" {
			details(&b, title+", end of the log", "text", bd.LogTail)
		}
		if len(bd.Manifest) > 0 {
			details(&b, title+", manifest", "json", indent(bd.Manifest))
		}
	}
	b.WriteString("\n## Details\n")
	if len(doc.Selection) > 0 {
		details(&b, "selection", "json", indent(doc.Selection))
	}
	if len(cs) > 0 {
		details(&b, fmt.Sprintf("all %d checks", len(cs)), "json", indent(doc.Findings))
	}
	if doc.Snapshot != nil {
		sn := *doc.Snapshot
		sn.Raw = nil // raw outputs are in the zip
		details(&b, "machine snapshot (also in report.json; replay it with `llamactl doctor --replay report.json`)", "json", pretty(sn))
	}
	return b.String()
}

func details(b *strings.Builder, summary, lang, body string) {
	if len(body) > mdDetailLimit {
		body = body[:mdDetailLimit] + "\n… (cut; the whole text is in report.json)"
	}
	body = strings.ReplaceAll(body, "```", "` ` `")
	fmt.Fprintf(b, "\n<details><summary>%s</summary>\n\n```%s\n%s\n```\n\n</details>\n", summary, lang, strings.TrimRight(body, "\n"))
}

func indent(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return pretty(v)
}

// pretty is indented JSON that keeps < and > readable ("<user>").
func pretty(v any) string {
	var b strings.Builder
	if err := jsonout.Write(&b, v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimRight(b.String(), "\n")
}

func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func short(c string) string {
	if len(c) > 12 {
		return "(" + c[:12] + ")"
	}
	if c == "" || c == "unknown" {
		return ""
	}
	return "(" + c + ")"
}

func lines(ls []int) string {
	var s []string
	for _, l := range ls {
		s = append(s, fmt.Sprint(l))
	}
	return strings.Join(s, ", ")
}
