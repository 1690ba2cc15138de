// Package patchescmd is `llamactl patches list|show ID`: the registry of
// known build fixes, for people and scripts.
package patchescmd

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
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
	// t and pt render the human output in the chosen language (--lang).
	t  *lang.Catalog
	pt *patches.Translator
}

//go:embed data/text.en.json
var textEN []byte

//go:embed data/text.zh-CN.json
var textZhCN []byte

// newOptions is the options of a run in the language of --lang (else the
// environment's); --json stays English.
func newOptions(f *cmdutil.Factory, flag, id string) (*Options, error) {
	l, err := f.ChooseLang(flag, "llamactl patches list --lang zh-CN")
	if err != nil {
		return nil, err
	}
	if f.IO.JSON {
		l = lang.EN
	}
	r := patches.Default()
	return &Options{IO: f.IO, Registry: r, ID: id, t: lang.FromFiles(l, textEN, textZhCN), pt: r.Translator(l)}, nil
}

// NewCmd builds `patches`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	var langFlag string
	cmd := &cobra.Command{
		Use:   "patches",
		Short: "List the known build fixes llamactl can apply",
		Long: `The patches registry: known fixes for llama.cpp builds (CMake entries, flags,
an MSVC toolset choice or a source diff), when each applies, and why.
"llamactl build" applies the proactive ones itself and the others with --heal.`,
		Args: cobra.NoArgs,
	}
	cmd.PersistentFlags().StringVar(&langFlag, "lang", "", cmdutil.LangUsage)
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
			o, err := newOptions(f, langFlag, "")
			if err != nil {
				return err
			}
			return listRun(o)
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
			o, err := newOptions(f, langFlag, args[0])
			if err != nil {
				return err
			}
			return showRun(o)
		},
	})
	return cmd
}

func trigger(t *lang.Catalog, p patches.Patch) string {
	var parts []string
	if p.When.Proactive {
		parts = append(parts, t.T("automatic"))
	}
	if len(p.When.Symptoms) > 0 {
		parts = append(parts, t.T("heal-on", "ids", strings.Join(p.When.Symptoms, ", ")))
	}
	return strings.Join(parts, "; ")
}

// texts is o's catalogs, English when o was built without them.
func (o *Options) texts() (*lang.Catalog, *patches.Translator) {
	if o.t == nil {
		return lang.FromFiles(lang.EN, textEN, textZhCN), o.Registry.Translator(lang.EN)
	}
	return o.t, o.pt
}

func listRun(opts *Options) error {
	if opts.IO.JSON {
		return ui.WriteJSON(opts.IO.Out, ListDoc{Schema: 1, Patches: opts.Registry.Patches})
	}
	t, pt := opts.texts()
	pr := ui.NewPrinter(opts.IO)
	var rows [][]string
	for _, p := range opts.Registry.Patches {
		rows = append(rows, []string{p.ID, pt.Title(p.ID, p.Title), trigger(t, p)})
	}
	pr.Table([]string{t.T("col.id"), t.T("col.title"), t.T("col.applied")}, rows)
	pr.Println()
	pr.Println(t.T("details"))
	return nil
}

func showRun(opts *Options) error {
	t, pt := opts.texts()
	p, ok := opts.Registry.Get(opts.ID)
	if !ok {
		return cmdutil.UsageErrorf("%s", t.T("err.no-patch", "id", fmt.Sprintf("%q", opts.ID), "ids", strings.Join(opts.Registry.IDs(), ", ")))
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
	pr.Heading(p.ID + ": " + pt.Title(p.ID, p.Title))
	pr.Printf("\n%s\n\n", pt.Why(p.ID, p.Why))
	pr.Printf("%s\n", t.T("applied", "value", trigger(t, p)))
	if w := when(t, p.When); w != "" {
		pr.Printf("%s\n", t.T("when", "value", w))
	}
	pr.Println(t.T("changes"))
	for _, l := range changeLines(t, p.Changes, "  ") {
		pr.Println(l)
	}
	if diff != "" {
		pr.Printf("\n%s", diff)
	}
	pr.Printf("%s\n", t.T("source", "value", p.Source))
	return nil
}

func when(t *lang.Catalog, w patches.When) string {
	var parts []string
	if len(w.OS) > 0 {
		parts = append(parts, "OS "+strings.Join(w.OS, "/"))
	}
	if len(w.Backends) > 0 {
		parts = append(parts, t.T("when.backend", "list", strings.Join(w.Backends, "/")))
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
		parts = append(parts, t.T("when.no-git"))
	}
	if w.HostCompilerNeeded {
		parts = append(parts, t.T("when.host-compiler"))
	}
	return strings.Join(parts, ", ")
}

func changeLines(t *lang.Catalog, c patches.Changes, indent string) []string {
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
		out = append(out, indent+t.T("change.msvc", "toolset", c.MSVCToolsetBelow))
	}
	if c.Diff != "" {
		out = append(out, indent+t.T("change.diff", "diff", c.Diff))
	}
	if c.Fallback != nil {
		out = append(out, indent+t.T("change.otherwise", "flag", c.Fallback.Requires))
		out = append(out, changeLines(t, *c.Fallback, indent+"  ")...)
	}
	return out
}
