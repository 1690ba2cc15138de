package build

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/llamactl/llamactl/build/engine"
	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/machine"
)

// Prepare completes the planner's input from the source tree and the
// tools, once, before planning: Vulkan headers named by --cmake-arg
// Vulkan_INCLUDE_DIR, the compiler launcher (ccache), what the source
// holds (engine.ScanSource), the CMake targets for targets (--target),
// and, for a Vulkan build, which shader features glslc has.
func Prepare(ctx context.Context, r proc.Runner, in plan.Input, targets []string) plan.Input {
	in.Snapshot = withUserVulkanHeaders(in.Snapshot, in.CMakeArgs)
	in.Launcher = launcher(r)
	in.Source = engine.ScanSource(in.SourceDir)
	in.Targets = ResolveTargets(in.SourceDir, targets)
	if in.Backend == "vulkan" || in.Backend == "auto" && in.Selection.Backend == "vulkan" {
		in.Source = engine.CheckGlslc(in.Source, in.SourceDir, plan.GlslcFor(in.Snapshot, in.CMakeArgs), func(name string, args ...string) (string, bool) {
			res, err := r.Run(ctx, proc.Cmd{Name: name, Args: args, Timeout: 30 * time.Second})
			return res.Combined(), err == nil && res.ExitCode == 0
		})
	}
	return in
}

// launcher returns ccache or sccache when installed.
func launcher(r proc.Runner) string {
	for _, name := range []string{"ccache", "sccache"} {
		if p, err := r.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// withUserVulkanHeaders adds the headers named by --cmake-arg
// Vulkan_INCLUDE_DIR=DIR to (a copy of) the snapshot, so the plan checks
// their VK_HEADER_VERSION like the ones doctor found.
func withUserVulkanHeaders(snap *machine.Snapshot, args []string) *machine.Snapshot {
	for _, a := range args {
		c, err := plan.ParseCacheArg(a)
		if err != nil || c.Name != "Vulkan_INCLUDE_DIR" {
			continue
		}
		for _, h := range snap.Vulkan.Headers {
			if filepath.Clean(h.IncludeDir) == filepath.Clean(c.Value) {
				return snap
			}
		}
		b, err := os.ReadFile(filepath.Join(c.Value, "vulkan", "vulkan_core.h"))
		if err != nil {
			return snap
		}
		n, complete := probe.ParseVulkanHeaderVersion(string(b))
		if n == 0 {
			return snap
		}
		cp := *snap
		cp.Vulkan.Headers = append(slices.Clone(snap.Vulkan.Headers), machine.VulkanHeaders{IncludeDir: c.Value, Version: n, Complete: complete, Origin: "cmake-arg"})
		return &cp
	}
	return snap
}
