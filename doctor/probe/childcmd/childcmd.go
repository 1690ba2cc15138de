// Package childcmd is the hidden `llamactl __probe` command: native probes
// that may crash or hang (NVML) run in this child process, and the parent
// (doctor/probe) reads its JSON with a timeout. `__probe record DIR` records
// this machine as a replayable scenario (see docs/doctor-snapshot.md).
package childcmd

import (
	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/doctor/probe/nvmlnative"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/ui"
)

// NewCmd builds `llamactl __probe nvml` and `llamactl __probe record DIR` (hidden).
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	var description string
	cmd := &cobra.Command{
		Use:    "__probe nvml | __probe record DIR",
		Short:  "Run one native probe and print its JSON, or record this machine (used by doctor)",
		Hidden: true,
		Args:   cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case args[0] == "nvml" && len(args) == 1:
				return ui.WriteJSON(f.IO.Out, nvmlnative.Query())
			case args[0] == "record" && len(args) == 2:
				d, rec := probe.Record(probe.System(f.Env()))
				s := probe.Gather(cmd.Context(), d)
				if err := rec.WriteScenario(args[1], description); err != nil {
					return cmdutil.Errorf(cmdutil.ExitInternal, "could not write the recording to %s: %v\nChoose a writable directory: llamactl __probe record ./my-machine", args[1], err)
				}
				if f.IO.JSON {
					return ui.WriteJSON(f.IO.Out, map[string]any{"schema": 1, "dir": args[1], "probe_errors": s.ProbeErrors})
				}
				cmd.Printf("Recorded this machine in %s/scenario.json (%d probe errors).\n", args[1], len(s.ProbeErrors))
				return nil
			default:
				return cmdutil.UsageErrorf("unknown probe %q: use \"llamactl __probe nvml\" or \"llamactl __probe record DIR\"", args[0])
			}
		},
	}
	cmd.Flags().StringVar(&description, "description", "", "what the recorded machine shows")
	return cmd
}
