// Package childcmd is the hidden `llamactl __probe` command: native probes
// that may crash or hang (NVML) run in this child process, and the parent
// (doctor/probe) reads its JSON with a timeout.
package childcmd

import (
	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/doctor/probe/nvmlnative"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/ui"
)

// NewCmd builds `llamactl __probe KIND` (hidden; KIND is "nvml").
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:    "__probe KIND",
		Short:  "Run one native probe and print its JSON (used by doctor)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch args[0] {
			case "nvml":
				return ui.WriteJSON(f.IO.Out, nvmlnative.Query())
			default:
				return cmdutil.UsageErrorf("unknown probe %q: the only probe is \"nvml\" (llamactl __probe nvml)", args[0])
			}
		},
	}
}
