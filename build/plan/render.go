package plan

import (
	"fmt"
	"strings"
)

// Shells the plan renders copy-pasteable scripts for.
var Shells = []string{"bash", "powershell", "cmd"}

// Script renders the plan's commands for one shell. The environment changes
// and the MSVC developer environment are part of the script, so pasting it
// into a fresh shell reproduces the build.
func (p Plan) Script(shell string) string {
	var b strings.Builder
	switch shell {
	case "bash":
		if p.VCVars != nil {
			fmt.Fprintf(&b, "# Windows: run inside the MSVC developer environment (\"%s\" %s), e.g. from an \"x64 Native Tools\" prompt's bash\n", p.VCVars.Path, strings.Join(p.VCVars.Args(), " "))
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

func shQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\"'\\$`;&|<>()*?[]{}!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shCommand(c Command) string {
	parts := []string{shQuote(c.Program)}
	for _, a := range c.Args {
		parts = append(parts, shQuote(a))
	}
	return strings.Join(parts, " ")
}

// psQuote single-quotes for PowerShell; embedded double quotes are escaped
// with a backslash so native programs (cmake) receive them literally.
func psQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t'\"$`;&|<>(){}@#,") {
		return s
	}
	s = strings.ReplaceAll(s, "'", "''")
	s = strings.ReplaceAll(s, `"`, `\"`)
	return "'" + s + "'"
}

func psCommand(c Command) string {
	parts := []string{"& " + psQuote(c.Program)}
	for _, a := range c.Args {
		parts = append(parts, psQuote(a))
	}
	return strings.Join(parts, " ")
}

// cmdQuote follows the MS C runtime rules cmake.exe parses its arguments with.
func cmdQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"&|<>^%") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

func cmdCommand(c Command) string {
	parts := []string{cmdQuote(c.Program)}
	for _, a := range c.Args {
		parts = append(parts, cmdQuote(a))
	}
	return strings.Join(parts, " ")
}

// Text renders the plan for a person: what will be built and why, the
// patches, warnings, blockers and the commands for each shell.
func (p Plan) Text() string {
	var b strings.Builder
	eng := p.Engine.Ref
	if eng == "" {
		eng = "source tree"
	}
	fmt.Fprintf(&b, "Plan: llama.cpp %s", eng)
	if p.Engine.BuildNumber > 0 {
		fmt.Fprintf(&b, " (build %d, commit %s)", p.Engine.BuildNumber, orUnknown(p.Engine.Commit))
	}
	fmt.Fprintf(&b, ", backend %s, %s, generator %s, %d jobs\n", p.Backend, p.OS, p.Generator, p.Jobs)
	fmt.Fprintf(&b, "  source: %s\n  build:  %s\n", p.SourceDir, p.BuildDir)
	if len(p.Reasons) > 0 {
		b.WriteString("\nWhy:\n")
		for _, r := range p.Reasons {
			fmt.Fprintf(&b, "  - %s\n", r)
		}
	}
	if p.VCVars != nil {
		fmt.Fprintf(&b, "\nMSVC environment: \"%s\" %s (applied to cmake and ninja only)\n", p.VCVars.Path, strings.Join(p.VCVars.Args(), " "))
	}
	b.WriteString("\nCMake options:\n")
	for _, c := range p.Cache {
		fmt.Fprintf(&b, "  %s\n", c.String())
	}
	if len(p.Env) > 0 {
		b.WriteString("\nEnvironment (cmake and ninja only):\n")
		for _, e := range p.Env {
			fmt.Fprintf(&b, "  %s=%s\n", e.Name, e.Value)
		}
	}
	if len(p.Patches) > 0 {
		b.WriteString("\nPatches:\n")
		for _, ap := range p.Patches {
			fmt.Fprintf(&b, "  %s: %s (%s)\n", ap.ID, ap.Title, ap.Reason)
			for _, c := range ap.Changes {
				fmt.Fprintf(&b, "      %s\n", c)
			}
		}
	}
	if len(p.Fixes) > 0 {
		b.WriteString("\nHealed (--heal):\n")
		for _, f := range p.Fixes {
			fmt.Fprintf(&b, "  %s: %s\n      %s\n", f.ID, f.Change, f.Text)
		}
	}
	if len(p.Warnings) > 0 {
		b.WriteString("\nWarnings:\n")
		for _, w := range p.Warnings {
			fmt.Fprintf(&b, "  ! %s\n", w)
		}
	}
	if len(p.Blockers) > 0 {
		b.WriteString("\nBlocked:\n")
		for _, w := range p.Blockers {
			fmt.Fprintf(&b, "  ✗ %s\n", w)
		}
	}
	for _, sh := range Shells {
		fmt.Fprintf(&b, "\n%s:\n", sh)
		for _, l := range strings.Split(strings.TrimRight(p.Script(sh), "\n"), "\n") {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	return b.String()
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
