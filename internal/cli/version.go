package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/internal/buildinfo"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/releasecheck"
	"github.com/llamactl/llamactl/internal/ui"
)

// VersionDoc is the --json output of `llamactl version`.
type VersionDoc struct {
	Schema int `json:"schema"`
	buildinfo.Info
	// Check is the outcome of --check; CheckError says why it could not complete.
	Check      *releasecheck.Result `json:"check,omitempty"`
	CheckError string               `json:"check_error,omitempty"`
}

// VersionOptions are `llamactl version`'s inputs.
type VersionOptions struct {
	IO     *ui.IOStreams
	Getenv func(string) string
	Info   buildinfo.Info
	Check  bool
	// Base is where checksums.txt of the latest release is (LLAMACTL_INSTALL_BASE
	// or releasecheck.DefaultBase); HTTPClient and Timeout are for tests.
	Base       string
	HTTPClient *http.Client
	Timeout    time.Duration
	GOOS       string
	// Lang is the language of the human output (--json stays English).
	Lang string
}

// NewCmdVersion builds `llamactl version [--check]`; runF replaces the run in tests.
func NewCmdVersion(f *cmdutil.Factory, runF func(context.Context, *VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: f.IO, Getenv: f.Getenv, Timeout: releasecheck.DefaultTimeout, GOOS: runtime.GOOS}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print llamactl's version, commit and build date",
		Long: `Print llamactl's version, the commit it was built from, the build date and the Go
version. Attach this line (or llamactl doctor --report) when you report a problem.

With --check it also asks for the latest release (its checksums.txt, at
` + releasecheck.DefaultBase + `,
or at LLAMACTL_INSTALL_BASE when set) and says whether to update. It exits 0 when this
is the latest release (or newer), 1 when a newer release exists or the check could not
reach the release within ` + releasecheck.DefaultTimeout.String() + `.`,
		Example: `  llamactl version
  llamactl version --json
  llamactl version --check`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Info = buildinfo.Get()
			opts.Base = opts.Getenv(releasecheck.BaseEnv)
			l, err := commandLang(f, cmd, !f.IO.JSON)
			if err != nil {
				return cmdutil.UsageError(err)
			}
			opts.Lang = l
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return versionRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Check, "check", false, "compare with the latest release (needs the network; exits 1 when outdated or unreachable)")
	return cmd
}

func versionRun(ctx context.Context, opts *VersionOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	info := opts.Info
	doc := VersionDoc{Schema: 1, Info: info}
	var checkErr error
	if opts.Check {
		doc.Check, checkErr = releasecheck.Check(ctx, opts.HTTPClient, opts.Base, info.Version, opts.Timeout)
		if checkErr != nil {
			doc.CheckError = checkErr.Error()
		}
	}
	if opts.IO.JSON {
		if err := ui.WriteJSON(opts.IO.Out, doc); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(opts.IO.Out, cliTexts(opts.Lang).T("version.line", "version", info.Version, "commit", short(info.Commit), "date", info.Date, "go", info.GoVersion))
		if doc.Check != nil {
			c := doc.Check
			switch c.Status {
			case releasecheck.Newer:
				fmt.Fprintln(opts.IO.Out, releasecheck.MessageIn(opts.Lang, "newer", c.Latest, c.Current, releasecheck.InstallCommand(opts.GOOS)))
			case releasecheck.Ahead:
				fmt.Fprintln(opts.IO.Out, releasecheck.MessageIn(opts.Lang, "ahead", c.Current, c.Latest))
			default:
				fmt.Fprintln(opts.IO.Out, releasecheck.MessageIn(opts.Lang, "up-to-date", c.Current))
			}
		}
	}
	if checkErr != nil {
		var e *releasecheck.Error
		if errors.As(checkErr, &e) && opts.IO.JSON {
			return cmdutil.Exit(cmdutil.ExitFindings) // the document carries check_error
		}
		if errors.As(checkErr, &e) {
			return cmdutil.Errorf(cmdutil.ExitFindings, "%s", e.In(opts.Lang))
		}
		return cmdutil.Errorf(cmdutil.ExitFindings, "%s", checkErr.Error())
	}
	if doc.Check != nil && doc.Check.Status == releasecheck.Newer {
		return cmdutil.Exit(cmdutil.ExitFindings)
	}
	return nil
}
