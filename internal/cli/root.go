// Package cli assembles llamactl's commands. Each command lives with its
// domain (matrix/matrixcmd, doctor/doctorcmd, ...) and is registered here.
package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/internal/buildinfo"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/ui"
)

// NewRoot builds the root command with the global flags.
func NewRoot(f *cmdutil.Factory) *cobra.Command { return newRoot(f, nil) }

// newRoot is NewRoot for the command line args, whose --lang its own
// errors follow (argsLang).
func newRoot(f *cmdutil.Factory, args []string) *cobra.Command {
	texts := func() *lang.Catalog { return cliTexts(argsLang(f, args)) }
	root := &cobra.Command{
		Use:   "llamactl",
		Short: "Build and run llama.cpp right the first time",
		Long: `llamactl makes llama.cpp build and run right the first time: it finds what is wrong
with this machine's GPU toolchain and how to fix it, builds the pinned llama.cpp with
the right flags, and sizes a GGUF model to this machine's memory.

A first session:
  llamactl doctor               what is wrong here, the exact fix commands, and what a build will use
  llamactl build --dry-run      the exact cmake commands a build would run (runs nothing)
  llamactl build                download, compile and verify llama.cpp
  llamactl run model.gguf       choose -ngl, context, batch and threads, and start llama.cpp
  llamactl explain build.log    the cause and the fix of a failed build or run

Every command takes --json: one document with a "schema" version on stdout (docs/json.md).
Exit codes: 0 fine, 1 something to act on, 2 bad usage or input, 3 a llamactl bug,
4 build failed, 5 engine failed, 6 lock not satisfied (docs/exit-codes.md).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Get().Version,
	}
	root.SetVersionTemplate("llamactl {{.Version}}\n")
	// Alone, llamactl shows its help; with --json a script expects a document,
	// so say which commands print one instead of printing help text.
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if f.IO.JSON {
			return cmdutil.UsageErrorf("--json needs a command, for example: llamactl doctor --json (every command's document: docs/json.md)")
		}
		return cmd.Help()
	}
	var noColor bool
	pf := root.PersistentFlags()
	pf.BoolVar(&f.IO.JSON, "json", false, "print one JSON document (schema-versioned) instead of text")
	pf.BoolVarP(&f.IO.Verbose, "verbose", "v", false, "show durations, raw facts and commands")
	pf.BoolVar(&noColor, "no-color", false, "plain text without colours (also: NO_COLOR=1)")
	// --lang of the commands without their own (version, completion, help,
	// groups such as rpc): it sets the language of their help. Hidden, so
	// the English help reads as before; each command's own --lang shows.
	pf.String("lang", "", cmdutil.LangUsage)
	_ = pf.MarkHidden("lang")
	root.PersistentPreRun = func(cmd *cobra.Command, args []string) {
		if noColor {
			f.IO.NoColor, f.IO.ErrTTY = true, false // no escape codes: no live bars either
		}
	}
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		t := texts()
		return cmdutil.UsageErrorf("%s\n%s", t.Line(err.Error()), t.T("err.run-help", "command", c.CommandPath()))
	})

	// --version is cobra's; its default usage text ("version for llamactl") says little.
	root.Flags().Bool("version", false, "print the version (llamactl version --json has commit and date)")

	for _, c := range domainCommands(f) {
		root.AddCommand(c)
	}
	root.AddCommand(NewCmdVersion(f, nil))
	root.AddCommand(newCompletionCmd(f))
	groupCommands(root)
	strictGroups(f, root, texts)
	installHelp(f, root)
	return root
}

// Help groups: the commands of a first session first, in that order, then the
// ones for looking things up. A command not listed lands in "more".
var (
	commandGroups = []*cobra.Group{
		{ID: "main", Title: "Main commands (in the order of a first session):"},
		{ID: "more", Title: "Inspect and look things up:"},
		{ID: "other", Title: "Other commands:"},
	}
	groupOf = map[string]string{
		"doctor": "main", "build": "main", "run": "main", "explain": "main",
		"version": "other", "completion": "other",
	}
	// mainOrder is the order of the main group in --help (cobra sorts by name otherwise).
	mainOrder = []string{"doctor", "build", "run", "explain"}
)

func groupCommands(root *cobra.Command) {
	// Sorting is global in cobra; the order of AddCommand is the order we want.
	cobra.EnableCommandSorting = false
	for _, g := range commandGroups {
		g := *g // each root its own: a translated help retitles them
		root.AddGroup(&g)
	}
	root.SetHelpCommandGroupID("other")
	root.SetCompletionCommandGroupID("other")
	cmds := root.Commands()
	rank := map[string]int{}
	for i, n := range mainOrder {
		rank[n] = i + 1
	}
	key := func(c *cobra.Command) string {
		if r := rank[c.Name()]; r > 0 {
			return fmt.Sprintf("0%02d", r)
		}
		return "1" + c.Name()
	}
	sort.SliceStable(cmds, func(i, j int) bool { return key(cmds[i]) < key(cmds[j]) })
	root.ResetCommands()
	for _, c := range cmds {
		if g, ok := groupOf[c.Name()]; ok {
			c.GroupID = g
		} else {
			c.GroupID = "more"
		}
		root.AddCommand(c)
	}
}

// strictGroups makes every command that only groups subcommands (matrix,
// patches) behave like the root: an unknown subcommand is a usage error
// (exit 2) instead of its help and exit 0, and --json without a subcommand
// is a usage error instead of help text that a script would try to parse.
func strictGroups(f *cmdutil.Factory, c *cobra.Command, texts func() *lang.Catalog) {
	for _, sub := range c.Commands() {
		strictGroups(f, sub, texts)
	}
	if !c.HasParent() || !c.HasAvailableSubCommands() {
		return
	}
	next := c.RunE
	if next == nil && c.Run == nil {
		next = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
	if next == nil {
		return // a group with its own Run: leave it alone
	}
	c.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			t := texts()
			return cmdutil.UsageErrorf("%s\n%s", t.T("err.unknown-subcommand", "name", fmt.Sprintf("%q", args[0]), "command", fmt.Sprintf("%q", cmd.CommandPath()), "choices", subcommandNames(cmd)),
				t.T("err.run-help", "command", cmd.CommandPath()))
		}
		return nil
	}
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if f.IO.JSON {
			return cmdutil.UsageErrorf("%s needs a subcommand for --json: %s\nFor example: %s %s --json", cmd.CommandPath(), subcommandNames(cmd), cmd.CommandPath(), firstSubcommand(cmd))
		}
		return next(cmd, args)
	}
}

func subcommandNames(c *cobra.Command) string {
	var names []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	return strings.Join(names, ", ")
}

func firstSubcommand(c *cobra.Command) string {
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			return strings.SplitN(s.Use, " ", 2)[0] + argHint(s)
		}
	}
	return ""
}

// argHint returns " ARG..." from a command's Use line, for an example.
func argHint(c *cobra.Command) string {
	if i := strings.IndexByte(c.Use, ' '); i >= 0 {
		return c.Use[i:]
	}
	return ""
}

// Execute runs the CLI with args and returns the process exit code.
//
// It owns what happens on the way out, for every command alike: Ctrl-C or
// SIGTERM cancels the command's context (the children's process groups are
// killed through it) and the exit code is 130; a second signal, or a command
// still running StopGrace after the first, kills every child (proc.KillAll)
// and exits 130 at once; a panic kills every child before it is reported.
func Execute(f *cmdutil.Factory, args []string) (code int) {
	proc.GuardChildren()
	t := cliTexts(argsLang(f, args))
	ctx, interrupted, stop := interruptContext(f, t)
	defer stop()
	defer func() {
		if p := recover(); p != nil {
			proc.KillAll()
			fmt.Fprintf(f.IO.ErrOut, "llamactl: %s\n", t.T("err.internal", "panic", fmt.Sprint(p), "stack", string(debug.Stack())))
			code = cmdutil.ExitInternal
		}
	}()
	code = execute(ctx, f, args)
	if interrupted() {
		proc.KillAll() // anything a command left running
		if code != cmdutil.ExitSignal {
			fmt.Fprintln(f.IO.ErrOut, "llamactl: "+t.T("err.interrupted"))
		}
		return cmdutil.ExitSignal
	}
	return code
}

// StopGrace is how long a command may take to stop after Ctrl-C before
// llamactl kills its children and exits.
var StopGrace = 10 * time.Second

// interruptContext returns a context cancelled by SIGINT/SIGTERM, a
// function saying whether that happened, and the function that stops
// listening. It also starts the watchdog for a second signal or a command
// that outlives StopGrace.
func interruptContext(f *cmdutil.Factory, t *lang.Catalog) (context.Context, func() bool, func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	var got atomic.Bool
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		got.Store(true)
		cancel()
		select {
		case <-sigs:
		case <-time.After(StopGrace):
		case <-done:
			return
		}
		proc.KillAll()
		fmt.Fprintln(f.IO.ErrOut, "llamactl: "+t.T("err.interrupted"))
		os.Exit(cmdutil.ExitSignal)
	}()
	return ctx, got.Load, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

func execute(ctx context.Context, f *cmdutil.Factory, args []string) int {
	root := newRoot(f, args)
	if args == nil {
		// cobra reads os.Args for nil: no arguments must mean none (in a
		// test binary os.Args holds its -test.* flags).
		args = []string{}
	}
	root.SetArgs(args)
	// Shell completion (cobra's hidden __complete) shows the commands' and
	// flags' descriptions: in the language of the help.
	if len(args) > 0 && strings.HasPrefix(args[0], "__complete") {
		if c := helpCatalog(argsLang(f, args)); c != nil {
			root.InitDefaultHelpCmd()
			localizeHelp(root, c)
		}
	}
	c, err := root.ExecuteContextC(ctx)
	if err == nil {
		return cmdutil.ExitOK
	}
	var ee *cmdutil.ExitError
	if errors.As(err, &ee) {
		if !ee.Silent && ee.Message != "" {
			fmt.Fprintf(f.IO.ErrOut, "llamactl: %s\n", localizeError(ee, argsLang(f, args)))
		}
		return ee.Code
	}
	if c == nil {
		c = root
	}
	// cobra's own argument errors are usage errors: say which command, its
	// usage line, and where its help is.
	msg := err.Error()
	if isCobraUsageError(msg) {
		t := cliTexts(argsLang(f, args))
		fmt.Fprintf(f.IO.ErrOut, "llamactl: %s\n", t.Line(msg))
		if c.HasParent() && c.Runnable() {
			fmt.Fprintln(f.IO.ErrOut, t.T("err.usage-line", "use", c.UseLine()))
		}
		fmt.Fprintln(f.IO.ErrOut, t.T("err.run-help", "command", c.CommandPath()))
		return cmdutil.ExitUsage
	}
	fmt.Fprintf(f.IO.ErrOut, "llamactl: %s\n", msg)
	return cmdutil.ExitInternal
}

func isCobraUsageError(msg string) bool {
	for _, s := range []string{"unknown command", "arg(s)", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument", "required flag", "if any flags in the group"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// CompletionDoc is the --json output of `llamactl completion SHELL`: the
// script, for installers that write it somewhere themselves.
type CompletionDoc struct {
	Schema int    `json:"schema"`
	Shell  string `json:"shell"`
	Script string `json:"script"`
}

func newCompletionCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print a completion script for your shell: it completes commands, flags, patch IDs
and file names. Load it in the current shell, or install it for every new one.
With --json the script is printed inside a JSON document (schema 1).`,
		Example: `  bash:        source <(llamactl completion bash)
  zsh:         llamactl completion zsh > "${fpath[1]}/_llamactl"
  fish:        llamactl completion fish | source
  PowerShell:  llamactl completion powershell | Out-String | Invoke-Expression`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			var buf bytes.Buffer
			var err error
			switch args[0] {
			case "bash":
				err = root.GenBashCompletionV2(&buf, true)
			case "zsh":
				err = root.GenZshCompletion(&buf)
			case "fish":
				err = root.GenFishCompletion(&buf, true)
			case "powershell":
				err = root.GenPowerShellCompletionWithDesc(&buf)
			default:
				l, _ := commandLang(f, cmd, false)
				return cmdutil.UsageErrorf("%s", cliTexts(l).T("err.unknown-shell", "shell", fmt.Sprintf("%q", args[0])))
			}
			if err != nil {
				return err
			}
			if f.IO.JSON {
				return ui.WriteJSON(f.IO.Out, CompletionDoc{Schema: 1, Shell: args[0], Script: buf.String()})
			}
			_, err = f.IO.Out.Write(buf.Bytes())
			return err
		},
	}
}
