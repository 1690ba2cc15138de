package plan

import (
	"fmt"
	"strings"

	"github.com/llamactl/llamactl/internal/finding"
	"github.com/llamactl/llamactl/internal/shellquote"
)

// Shells the plan renders copy-pasteable scripts for.
var Shells = []string{"bash", "powershell", "cmd"}

// Script renders the plan's commands for one shell. The environment changes
// and the MSVC developer environment are part of the script, so pasting it
// into a fresh shell reproduces the build.
func (p Plan) Script(shell string) string { return p.ScriptIn(shell, NewTranslator("")) }

// ScriptIn is Script with its comments in the translator's language; the
// commands stay as they are.
func (p Plan) ScriptIn(shell string, t *Translator) string {
	var b strings.Builder
	switch shell {
	case "bash":
		if p.VCVars != nil {
			fmt.Fprintf(&b, "# %s\n", t.T("script-msvc-comment", p.VCVars.Path, strings.Join(p.VCVars.Args(), " ")))
		}
		for _, e := range p.Env {
			fmt.Fprintf(&b, "export %s=%s\n", e.Name, shQuote(e.Value))
		}
		fmt.Fprintln(&b, shCommand(p.Configure))
		fmt.Fprintln(&b, shCommand(p.Build))
	case "powershell":
		if p.VCVars != nil {
			// Import the variables vcvarsall sets into this PowerShell session.
			fmt.Fprintf(&b, "cmd /c '\"%s\" %s >nul && set' | ForEach-Object { if ($_ -match '^([^=]+)=(.*)$') { Set-Item -Path \"Env:$($matches[1])\" -Value $matches[2] } }\n",
				p.VCVars.Path, strings.Join(p.VCVars.Args(), " "))
		}
		for _, e := range p.Env {
			fmt.Fprintf(&b, "$env:%s = %s\n", e.Name, psQuote(e.Value))
		}
		fmt.Fprintln(&b, psCommand(p.Configure))
		fmt.Fprintln(&b, psCommand(p.Build))
	case "cmd":
		if p.VCVars != nil {
			fmt.Fprintf(&b, "call \"%s\" %s\n", p.VCVars.Path, strings.Join(p.VCVars.Args(), " "))
		}
		for _, e := range p.Env {
			fmt.Fprintf(&b, "set \"%s=%s\"\n", e.Name, e.Value)
		}
		fmt.Fprintln(&b, cmdCommand(p.Configure))
		fmt.Fprintln(&b, cmdCommand(p.Build))
	}
	return b.String()
}

func shQuote(s string) string { return shellquote.Sh(s) }

func shCommand(c Command) string {
	parts := []string{shQuote(c.Program)}
	for _, a := range c.Args {
		parts = append(parts, shQuote(a))
	}
	return strings.Join(parts, " ")
}

func psQuote(s string) string { return shellquote.PowerShell(s) }

func psCommand(c Command) string {
	parts := []string{"& " + psQuote(c.Program)}
	for _, a := range c.Args {
		parts = append(parts, psQuote(a))
	}
	return strings.Join(parts, " ")
}

func cmdQuote(s string) string { return shellquote.Cmd(s) }

func cmdCommand(c Command) string {
	parts := []string{cmdQuote(c.Program)}
	for _, a := range c.Args {
		parts = append(parts, cmdQuote(a))
	}
	return strings.Join(parts, " ")
}

// TextWriter is what a plan's text goes through: the command's printer.
// Printf writes the text as it is; Notes writes warnings (finding.Warn) or
// blockers (finding.Error) under their heading, one "  <mark> summary" line
// each, through the one finding printer (internal/ui Printer.Findings, which
// a domain package may not import) in the output's language.
type TextWriter interface {
	Printf(format string, a ...any)
	Notes(fs []finding.Finding)
}

// Text renders the plan in English as WriteText does, but without the lines
// of its warnings and blockers (those need the command's printer; they are
// in Warnings and Blockers).
func (p Plan) Text() string { return p.TextIn(NewTranslator("")) }

// TextIn is Text in the translator's language.
func (p Plan) TextIn(t *Translator) string {
	var b textOnly
	p.WriteText(t, &b)
	return b.String()
}

// textOnly collects a plan's text and leaves its notes out.
type textOnly struct{ strings.Builder }

func (b *textOnly) Printf(format string, a ...any) { fmt.Fprintf(&b.Builder, format, a...) }
func (b *textOnly) Notes([]finding.Finding)        {}

// WriteText renders the plan for a person through w in the translator's
// language: what will be built and why, the patches, warnings, blockers and
// the commands for each shell.
func (p Plan) WriteText(t *Translator, w TextWriter) {
	eng := p.Engine.Ref
	if eng == "" {
		eng = t.T("text-source-tree")
	}
	if p.Engine.BuildNumber > 0 {
		commit := p.Engine.Commit
		if commit == "" {
			commit = t.T("text-unknown")
		}
		w.Printf("%s\n", t.T("text-plan-with-build", eng, p.Engine.BuildNumber, commit, p.Backend, p.OS, p.Generator, p.Jobs))
	} else {
		w.Printf("%s\n", t.T("text-plan", eng, p.Backend, p.OS, p.Generator, p.Jobs))
	}
	w.Printf("  %s\n  %s\n", t.T("text-source-dir", p.SourceDir), t.T("text-build-dir", p.BuildDir))
	for _, l := range p.jobsLine(t) {
		w.Printf("  %s\n", l)
	}
	if len(p.Reasons) > 0 {
		w.Printf("\n%s\n", t.T("text-why"))
		for _, r := range p.Reasons {
			w.Printf("  - %s\n", t.Line(r))
		}
	}
	if p.VCVars != nil {
		w.Printf("\n%s\n", t.T("text-msvc-env", p.VCVars.Path, strings.Join(p.VCVars.Args(), " ")))
	}
	w.Printf("\n%s\n", t.T("text-cmake-options"))
	for _, c := range p.Cache {
		w.Printf("  %s\n", c.String())
	}
	if len(p.Targets) > 0 {
		w.Printf("\n%s\n", t.T("text-targets", strings.Join(p.Targets, " ")))
	}
	if len(p.Offline) > 0 {
		w.Printf("\n%s\n", t.T("text-offline"))
		for _, o := range p.Offline {
			w.Printf("  - %s\n", t.Note(o))
		}
	}
	if len(p.Env) > 0 {
		w.Printf("\n%s\n", t.T("text-environment"))
		for _, e := range p.Env {
			w.Printf("  %s=%s\n", e.Name, e.Value)
		}
	}
	if len(p.Patches) > 0 {
		w.Printf("\n%s\n", t.T("text-patches"))
		for _, ap := range p.Patches {
			title, reason := t.Patch(ap)
			w.Printf("  %s\n", t.T("text-patch", ap.ID, title, reason))
			for _, c := range ap.Changes {
				w.Printf("      %s\n", c)
			}
		}
	}
	if len(p.Fixes) > 0 {
		w.Printf("\n%s\n", t.T("text-healed"))
		for _, f := range p.Fixes {
			w.Printf("  %s: %s\n      %s\n", f.ID, f.Change, t.Line(f.Text))
		}
	}
	for _, sec := range []struct {
		heading string
		notes   []Note
		status  finding.Status
	}{{"text-warnings", p.Warnings, finding.Warn}, {"text-blocked", p.Blockers, finding.Error}} {
		if len(sec.notes) == 0 {
			continue
		}
		w.Printf("\n%s\n", t.T(sec.heading))
		fs := make([]finding.Finding, len(sec.notes))
		for i, n := range sec.notes {
			fs[i] = n.Shared(sec.status)
		}
		w.Notes(fs)
	}
	for _, sh := range Shells {
		w.Printf("\n%s:\n", sh)
		for _, l := range strings.Split(strings.TrimRight(p.ScriptIn(sh, t), "\n"), "\n") {
			w.Printf("  %s\n", l)
		}
	}
}
