package cli

import (
	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/build/buildcmd"
	"github.com/llamactl/llamactl/doctor/doctorcmd"
	"github.com/llamactl/llamactl/doctor/probe/childcmd"
	"github.com/llamactl/llamactl/failures/explaincmd"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/kernels/probecmd"
	"github.com/llamactl/llamactl/matrix/matrixcmd"
	"github.com/llamactl/llamactl/patches/patchescmd"
	"github.com/llamactl/llamactl/runner/rpccmd"
	"github.com/llamactl/llamactl/runner/runcmd"
)

// domainCommands lists the commands of each domain, one line each, in the
// order `llamactl --help` shows them.
func domainCommands(f *cmdutil.Factory) []*cobra.Command {
	return []*cobra.Command{
		// doctor, build, run, explain, matrix, patches, gguf, probe: added by their packages' owners.
		doctorcmd.NewCmd(f),
		buildcmd.NewCmd(f), patchescmd.NewCmd(f), // build, patches list|show
		matrixcmd.NewCmd(f),
		runcmd.NewCmd(f), runcmd.NewCmdGGUF(f), // run MODEL, gguf MODEL
		rpccmd.NewCmd(f), // rpc serve
		explaincmd.NewCmd(f),
		probecmd.WithOpenCLChild(f, childcmd.NewCmd(f)), // hidden: llamactl __probe nvml (doctor's native child probe) | opencl (kernels)
		probecmd.NewCmd(f),
	}
}
