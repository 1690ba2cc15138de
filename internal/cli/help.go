package cli

import (
	_ "embed"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/placeholder"
)

// The help of every command in another language, kept here so the command
// packages keep their English texts in code and need no change.
//
// data/help.en.json is the English of the whole command tree by stable key
// (helpKeys: the command path with ":short", ":long" or ":example", or with
// " --flag" for a flag's usage) plus cobra's own words ("cobra:..."), and
// the titles of the root's command groups ("group:..."); a test keeps it
// equal to the tree (go test ./internal/cli -run TestHelpCatalog -update
// rewrites it). data/help.zh-CN.json translates it, key by key. A text
// whose English changed since it was translated is shown in English until
// the translation follows (the test names it).

//go:embed data/help.en.json
var helpEN []byte

//go:embed data/help.zh-CN.json
var helpZhCN []byte

// Keys of cobra's own words in the help catalog.
const (
	helpUsage       = "cobra:usage"
	helpAliases     = "cobra:aliases"
	helpExamples    = "cobra:examples"
	helpAvailable   = "cobra:available-commands"
	helpAdditional  = "cobra:additional-commands"
	helpFlags       = "cobra:flags"
	helpGlobalFlags = "cobra:global-flags"
	helpTopics      = "cobra:help-topics"
	helpMore        = "cobra:more"
	helpHelpFlag    = "cobra:help-flag"
	helpDefault     = "cobra:default"
	helpUnknown     = "cobra:unknown-topic"
)

// helpCobraEN is the English of cobra's words as cobra prints them; the
// catalog file holds the same texts (a test compares them).
var helpCobraEN = map[string]string{
	helpUsage:       "Usage:",
	helpAliases:     "Aliases:",
	helpExamples:    "Examples:",
	helpAvailable:   "Available Commands:",
	helpAdditional:  "Additional Commands:",
	helpFlags:       "Flags:",
	helpGlobalFlags: "Global Flags:",
	helpTopics:      "Additional help topics:",
	helpMore:        `Use "{command} [command] --help" for more information about a command.`,
	helpHelpFlag:    "help for {name}",
	helpDefault:     "(default {value})",
	helpUnknown:     "Unknown help topic {topic}",
}

// helpCommandKey is the stable key of a command: its path ("llamactl
// matrix gpu").
func helpCommandKey(c *cobra.Command) string { return c.CommandPath() }

// helpFlagKey is the stable key of a flag's usage, on the command that
// defines it ("llamactl doctor --lang").
func helpFlagKey(c *cobra.Command, f *pflag.Flag) string {
	return helpCommandKey(c) + " --" + f.Name
}

// helpTexts is the English of every text the help of root's tree shows, by
// key: the commands a user can reach (hidden ones are llamactl's own
// plumbing), their Short, Long and Example, the usage of each visible flag
// where it is defined, the group titles and cobra's words.
func helpTexts(root *cobra.Command) map[string]string {
	root.InitDefaultHelpCmd()
	texts := map[string]string{}
	for k, v := range helpCobraEN {
		texts[k] = v
	}
	for _, g := range root.Groups() {
		texts["group:"+g.ID] = g.Title
	}
	walkHelp(root, func(c *cobra.Command) {
		k := helpCommandKey(c)
		for field, v := range map[string]string{":short": c.Short, ":long": c.Long, ":example": c.Example} {
			if strings.TrimSpace(v) != "" {
				texts[k+field] = v
			}
		}
		definedFlags(c, func(f *pflag.Flag) {
			if f.Usage != "" {
				texts[helpFlagKey(c, f)] = f.Usage
			}
		})
	})
	return texts
}

// walkHelp calls fn for every command of the tree that is not hidden.
func walkHelp(c *cobra.Command, fn func(*cobra.Command)) {
	if c.Hidden {
		return
	}
	fn(c)
	for _, s := range c.Commands() {
		walkHelp(s, fn)
	}
}

// definedFlags calls fn for each visible flag c itself defines (local and
// persistent), not cobra's --help (helpHelpFlag translates it).
func definedFlags(c *cobra.Command, fn func(*pflag.Flag)) {
	seen := map[string]bool{}
	visit := func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" || seen[f.Name] {
			return
		}
		seen[f.Name] = true
		fn(f)
	}
	c.NonInheritedFlags().VisitAll(visit)
}

// helpCatalog is the translation of the help in l; nil for English.
func helpCatalog(l string) *lang.Catalog {
	if l != lang.ZhCN {
		return nil
	}
	c := lang.FromFiles(l, helpEN, helpZhCN)
	if !c.Translated() {
		return nil
	}
	return c
}

// translateText is the translation of the live English text en under key,
// or en itself when the catalog lacks it or was made from another English
// (a text changed since it was translated).
func translateText(c *lang.Catalog, key, en string) string {
	if c == nil || en == "" || !c.HasTranslation(key) || c.English(key) != en {
		return en
	}
	return c.Template(key)
}

// localizeHelp puts the translations of c into root's tree: the commands'
// texts, the flags' usages (cobra's --help too) and the group titles.
func localizeHelp(root *cobra.Command, c *lang.Catalog) {
	for _, g := range root.Groups() {
		g.Title = translateText(c, "group:"+g.ID, g.Title)
	}
	var all func(*cobra.Command)
	all = func(cmd *cobra.Command) {
		k := helpCommandKey(cmd)
		cmd.Short = translateText(c, k+":short", cmd.Short)
		cmd.Long = translateText(c, k+":long", cmd.Long)
		cmd.Example = translateText(c, k+":example", cmd.Example)
		definedFlags(cmd, func(f *pflag.Flag) {
			f.Usage = translateText(c, helpFlagKey(cmd, f), f.Usage)
		})
		if h := cmd.Flags().Lookup("help"); h != nil && h.Usage == "help for "+cmd.DisplayName() {
			h.Usage = c.T(helpHelpFlag, "name", cmd.DisplayName())
		}
		for _, s := range cmd.Commands() {
			all(s)
		}
	}
	all(root)
}

// helpLang is the language of cmd's help (commandLang). A bad --lang is
// reported and the help is English.
func helpLang(f *cmdutil.Factory, cmd *cobra.Command) string {
	l, err := commandLang(f, cmd, true)
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "llamactl: %v\n", err)
	}
	return l
}

// installHelp makes root's help speak the chosen language: English is
// cobra's own help, unchanged; another language translates the tree and
// renders it with translated headings. So do the usage (which `help` with
// an unknown topic prints) and `help`'s unknown-topic line.
func installHelp(f *cmdutil.Factory, root *cobra.Command) {
	english := root.HelpFunc()
	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		c := helpCatalog(helpLang(f, cmd))
		if c == nil {
			english(cmd, args)
			return
		}
		localizeHelp(cmd.Root(), c)
		writeHelp(cmd.OutOrStdout(), cmd, c)
	})
	englishUsage := root.UsageFunc()
	root.SetUsageFunc(func(cmd *cobra.Command) error {
		c := helpCatalog(helpLang(f, cmd))
		if c == nil {
			return englishUsage(cmd)
		}
		localizeHelp(cmd.Root(), c)
		writeUsage(cmd.OutOrStderr(), cmd, c)
		return nil
	})
	root.InitDefaultHelpCmd()
	for _, h := range root.Commands() {
		if h.Name() != "help" || h.Run == nil {
			continue
		}
		run := h.Run
		h.Run = func(cmd *cobra.Command, args []string) {
			if t, _, err := cmd.Root().Find(args); t == nil || err != nil {
				if c := helpCatalog(helpLang(f, cmd)); c != nil {
					cmd.Println(c.T(helpUnknown, "topic", fmt.Sprintf("%#q", args)))
					_ = cmd.Root().Usage()
					return
				}
			}
			run(cmd, args)
		}
	}
}

// writeHelp prints cmd's help, laid out as cobra lays it out, with the
// headings from c.
func writeHelp(w io.Writer, cmd *cobra.Command, c *lang.Catalog) {
	text := cmd.Long
	if text == "" {
		text = cmd.Short
	}
	if text = strings.TrimRightFunc(text, isSpace); text != "" {
		fmt.Fprintf(w, "%s\n\n", text)
	}
	if cmd.Runnable() || cmd.HasSubCommands() {
		writeUsage(w, cmd, c)
	}
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

func writeUsage(w io.Writer, cmd *cobra.Command, c *lang.Catalog) {
	var b strings.Builder
	b.WriteString(c.T(helpUsage))
	if cmd.Runnable() {
		b.WriteString("\n  " + cmd.UseLine())
	}
	if cmd.HasAvailableSubCommands() {
		b.WriteString("\n  " + cmd.CommandPath() + " [command]")
	}
	if len(cmd.Aliases) > 0 {
		b.WriteString("\n\n" + c.T(helpAliases) + "\n  " + cmd.NameAndAliases())
	}
	if cmd.HasExample() {
		b.WriteString("\n\n" + c.T(helpExamples) + "\n" + cmd.Example)
	}
	if cmd.HasAvailableSubCommands() {
		list := func(title string, in func(*cobra.Command) bool) {
			b.WriteString("\n\n" + title)
			for _, s := range cmd.Commands() {
				if in(s) && (s.IsAvailableCommand() || s.Name() == "help") {
					fmt.Fprintf(&b, "\n  %-*s %s", s.NamePadding(), s.Name(), s.Short)
				}
			}
		}
		if len(cmd.Groups()) == 0 {
			list(c.T(helpAvailable), func(*cobra.Command) bool { return true })
		} else {
			for _, g := range cmd.Groups() {
				id := g.ID
				list(g.Title, func(s *cobra.Command) bool { return s.GroupID == id })
			}
			if !cmd.AllChildCommandsHaveGroup() {
				list(c.T(helpAdditional), func(s *cobra.Command) bool { return s.GroupID == "" })
			}
		}
	}
	if cmd.HasAvailableLocalFlags() {
		b.WriteString("\n\n" + c.T(helpFlags) + "\n" + flagUsages(cmd.LocalFlags(), c))
	}
	if cmd.HasAvailableInheritedFlags() {
		b.WriteString("\n\n" + c.T(helpGlobalFlags) + "\n" + flagUsages(cmd.InheritedFlags(), c))
	}
	if cmd.HasHelpSubCommands() {
		b.WriteString("\n\n" + c.T(helpTopics))
		for _, s := range cmd.Commands() {
			if s.IsAdditionalHelpTopicCommand() {
				fmt.Fprintf(&b, "\n  %-*s %s", s.CommandPathPadding(), s.CommandPath(), s.Short)
			}
		}
	}
	if cmd.HasAvailableSubCommands() {
		b.WriteString("\n\n" + c.T(helpMore, "command", cmd.CommandPath()))
	}
	fmt.Fprintln(w, b.String())
}

// pflag ends a usage line with "(default VALUE)".
var flagDefaultRE = regexp.MustCompile(`(?m) \(default (.*)\)$`)

// flagUsages is pflag's table of fs with its "(default ...)" in c's words.
func flagUsages(fs *pflag.FlagSet, c *lang.Catalog) string {
	s := strings.TrimRightFunc(fs.FlagUsages(), isSpace)
	return flagDefaultRE.ReplaceAllStringFunc(s, func(m string) string {
		v := flagDefaultRE.FindStringSubmatch(m)[1]
		return placeholder.Fill(c.Template(helpDefault), "value", v)
	})
}
