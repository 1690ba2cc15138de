// Package cli assembles llamactl's commands. Each command lives with its
// domain (matrix/matrixcmd, doctor/doctorcmd, ...) and is registered here.
package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/internal/buildinfo"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/ui"
)

// NewRoot builds the root command with the global flags.
func NewRoot(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "llamactl",
		Short: "Build and run llama.cpp right the first time",
		Long: `llamactl makes llama.cpp build and run right the first time.

  llamactl doctor        find what is wrong with this machine's GPU toolchain, and how to fix it
  llamactl build         download the pinned llama.cpp and compile it with the right flags
  llamactl run MODEL     size a GGUF model to this machine and start llama.cpp
  llamactl explain LOG   name the cause and the fix of a failed build or run

Start with "llamactl doctor". Every command takes --json for scripts.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Get().Version,
	}
	root.SetVersionTemplate("llamactl {{.Version}}\n")
	var noColor bool
	pf := root.PersistentFlags()
	pf.BoolVar(&f.IO.JSON, "json", false, "print one JSON document (schema-versioned) instead of text")
	pf.BoolVarP(&f.IO.Verbose, "verbose", "v", false, "show durations, raw facts and commands")
	pf.BoolVar(&noColor, "no-color", false, "plain text without colours (also: NO_COLOR=1)")
	root.PersistentPreRun = func(cmd *cobra.Command, args []string) {
		if noColor {
			f.IO.NoColor = true
		}
	}
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return cmdutil.UsageErrorf("%v\nRun '%s --help' for usage.", err, c.CommandPath())
	})

	root.AddCommand(newVersionCmd(f))
	root.AddCommand(newCompletionCmd(f))
	for _, c := range domainCommands(f) {
		root.AddCommand(c)
	}
	return root
}

// Execute runs the CLI with args and returns the process exit code.
func Execute(f *cmdutil.Factory, args []string) int {
	root := NewRoot(f)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return cmdutil.ExitOK
	}
	var ee *cmdutil.ExitError
	if errors.As(err, &ee) {
		if !ee.Silent && ee.Message != "" {
			fmt.Fprintf(f.IO.ErrOut, "llamactl: %s\n", ee.Message)
		}
		return ee.Code
	}
	// cobra's own argument errors are usage errors.
	msg := err.Error()
	if strings.HasPrefix(msg, "unknown command") || strings.Contains(msg, "arg(s)") || strings.HasPrefix(msg, "unknown flag") || strings.Contains(msg, "flag needs an argument") {
		fmt.Fprintf(f.IO.ErrOut, "llamactl: %s\nRun 'llamactl --help' for usage.\n", msg)
		return cmdutil.ExitUsage
	}
	fmt.Fprintf(f.IO.ErrOut, "llamactl: %s\n", msg)
	return cmdutil.ExitInternal
}

// VersionDoc is the --json output of `llamactl version`.
type VersionDoc struct {
	Schema int `json:"schema"`
	buildinfo.Info
}

func newVersionCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print llamactl's version, commit and build date",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			info := buildinfo.Get()
			if f.IO.JSON {
				return ui.WriteJSON(f.IO.Out, VersionDoc{Schema: 1, Info: info})
			}
			fmt.Fprintf(f.IO.Out, "llamactl %s (commit %s, built %s, %s)\n", info.Version, short(info.Commit), info.Date, info.GoVersion)
			return nil
		},
	}
}

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

func newCompletionCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print a completion script for your shell. For example:

  bash:        source <(llamactl completion bash)
  zsh:         llamactl completion zsh > "${fpath[1]}/_llamactl"
  fish:        llamactl completion fish | source
  PowerShell:  llamactl completion powershell | Out-String | Invoke-Expression`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(f.IO.Out, true)
			case "zsh":
				return root.GenZshCompletion(f.IO.Out)
			case "fish":
				return root.GenFishCompletion(f.IO.Out, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(f.IO.Out)
			}
			return cmdutil.UsageErrorf("unknown shell %q: choose bash, zsh, fish or powershell", args[0])
		},
	}
}
