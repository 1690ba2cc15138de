// Package patchescmd is `llamactl patches list|show ID`: the registry of
// known build fixes, for people and scripts.
package patchescmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/patches"
)

// ListDoc is the --json output of `patches list`.
type ListDoc struct {
	Schema  int             `json:"schema"`
	Patches []patches.Patch `json:"patches"`
}

// ShowDoc is the --json output of `patches show ID`.
type ShowDoc struct {
	Schema int           `json:"schema"`
	Patch  patches.Patch `json:"patch"`
	Diff   string        `json:"diff,omitempty"`
}

// Options are the parsed inputs of both subcommands.
type Options struct {
	IO       *ui.IOStreams
	Registry *patches.Registry
	ID       string
}

// NewCmd builds `patches`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "patches",
		Short: "List the known build fixes llamactl can apply",
		Long: `The patches registry: known fixes for llama.cpp builds (CMake entries, flags,
an MSVC toolset choice or a source diff), when each applies, and why.
"llamactl build" applies the proactive ones itself and the others with --heal.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List every patch with what triggers it",
		Long: `List every known build fix: its ID, what it does, and when llamactl build applies
it: "automatic" (always, when the machine needs it) or "--heal on <failure ID>"
(after a failed build whose log shows that failure; see llamactl explain).`,
		Example: `  llamactl patches list
  llamactl patches list --json | jq -r '.patches[].id'`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return listRun(&Options{IO: f.IO, Registry: patches.Default()})
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "show ID",
		Short: "Show one patch: why, when and what it changes",
		Long: `Show one patch: why it exists, when it applies (operating system, CUDA and
compiler versions, the failure IDs that trigger it with --heal), what it changes
(CMake entries, flags, an MSVC toolset, or a source diff, printed in full) and
its source. The IDs are those of llamactl patches list.`,
		Example: `  llamactl patches show msvc-stl-cuda
  llamactl patches show cuda-stream-t --json`,
		Args: cobra.ExactArgs(1),
		ValidArgsFunction: func(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			return patches.Default().IDs(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			return showRun(&Options{IO: f.IO, Registry: patches.Default(), ID: args[0]})
		},
	})
	return cmd
}

func trigger(p patches.Patch) string {
	var parts []string
	if p.When.Proactive {
		parts = append(parts, "automatic")
	}
	if len(p.When.Symptoms) > 0 {
		parts = append(parts, "--heal on "+strings.Join(p.When.Symptoms, ", "))
	}
	return strings.Join(parts, "; ")
}

func listRun(opts *Options) error {
	if opts.IO.JSON {
		return ui.WriteJSON(opts.IO.Out, ListDoc{Schema: 1, Patches: opts.Registry.Patches})
	}
	pr := ui.NewPrinter(opts.IO)
	var rows [][]string
	for _, p := range opts.Registry.Patches {
		rows = append(rows, []string{p.ID, p.Title, trigger(p)})
	}
	pr.Table([]string{"ID", "TITLE", "APPLIED"}, rows)
	pr.Println()
	pr.Println("Details: llamactl patches show ID")
	return nil
}

func showRun(opts *Options) error {
	p, ok := opts.Registry.Get(opts.ID)
	if !ok {
		return cmdutil.UsageErrorf("no patch named %q: known patches are %s.\nRun 'llamactl patches list'.", opts.ID, strings.Join(opts.Registry.IDs(), ", "))
	}
	var diff string
	if p.Changes.Diff != "" {
		b, err := patches.DiffFor(p)
		if err != nil {
			return cmdutil.Errorf(cmdutil.ExitInternal, "patch %s: %v", p.ID, err)
		}
		diff = string(b)
	}
	if opts.IO.JSON {
		return ui.WriteJSON(opts.IO.Out, ShowDoc{Schema: 1, Patch: p, Diff: diff})
	}
	pr := ui.NewPrinter(opts.IO)
	pr.Heading(p.ID + ": " + p.Title)
	pr.Printf("\n%s\n\n", p.Why)
	pr.Printf("Applied:  %s\n", trigger(p))
	if w := when(p.When); w != "" {
		pr.Printf("When:     %s\n", w)
	}
	pr.Println("Changes:")
	for _, l := range changeLines(p.Changes, "  ") {
		pr.Println(l)
	}
	if diff != "" {
		pr.Printf("\n%s", diff)
	}
	pr.Printf("Source:   %s\n", p.Source)
	return nil
}

func when(w patches.When) string {
	var parts []string
	if len(w.OS) > 0 {
		parts = append(parts, "OS "+strings.Join(w.OS, "/"))
	}
	if len(w.Backends) > 0 {
		parts = append(parts, "backend "+strings.Join(w.Backends, "/"))
	}
	if w.CUDAMin != "" {
		parts = append(parts, "CUDA >= "+w.CUDAMin)
	}
	if w.CUDAMax != "" {
		parts = append(parts, "CUDA <= "+w.CUDAMax)
	}
	if w.MSVCMin != "" {
		parts = append(parts, "MSVC toolset >= "+w.MSVCMin)
	}
	if w.EngineMin > 0 {
		parts = append(parts, fmt.Sprintf("llama.cpp >= b%d", w.EngineMin))
	}
	if w.EngineMax > 0 {
		parts = append(parts, fmt.Sprintf("llama.cpp <= b%d", w.EngineMax))
	}
	if w.NoGit {
		parts = append(parts, "source without git metadata")
	}
	if w.HostCompilerNeeded {
		parts = append(parts, "default g++ newer than nvcc accepts")
	}
	return strings.Join(parts, ", ")
}

func changeLines(c patches.Changes, indent string) []string {
	var out []string
	for _, kv := range c.Cache {
		out = append(out, fmt.Sprintf("%s-D%s=%s", indent, kv.Name, kv.Value))
	}
	for _, kv := range c.Append {
		out = append(out, fmt.Sprintf("%s%s += %s", indent, kv.Name, kv.Value))
	}
	for _, kv := range c.Env {
		out = append(out, fmt.Sprintf("%senv %s=%s", indent, kv.Name, kv.Value))
	}
	if c.MSVCToolsetBelow != "" {
		out = append(out, fmt.Sprintf("%sselect the newest installed MSVC toolset below %s (vcvarsall -vcvars_ver=)", indent, c.MSVCToolsetBelow))
	}
	if c.Diff != "" {
		out = append(out, fmt.Sprintf("%sapply source diff %s", indent, c.Diff))
	}
	if c.Fallback != nil {
		out = append(out, fmt.Sprintf("%sotherwise, only with --%s:", indent, c.Fallback.Requires))
		out = append(out, changeLines(*c.Fallback, indent+"  ")...)
	}
	return out
}
