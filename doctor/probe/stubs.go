package probe

import (
	"context"

	"github.com/llamactl/llamactl/doctor/snapshot"
)

func gatherHost(ctx context.Context, g *gctx) func(*snapshot.Snapshot)       { return nil }
func gatherNVIDIA(ctx context.Context, g *gctx) func(*snapshot.Snapshot)     { return nil }
func gatherCUDA(ctx context.Context, g *gctx) func(*snapshot.Snapshot)       { return nil }
func gatherCompilers(ctx context.Context, g *gctx) func(*snapshot.Snapshot)  { return nil }
func gatherBuildTools(ctx context.Context, g *gctx) func(*snapshot.Snapshot) { return nil }
func gatherOpenCL(ctx context.Context, g *gctx) func(*snapshot.Snapshot)     { return nil }
func gatherVulkan(ctx context.Context, g *gctx) func(*snapshot.Snapshot)     { return nil }
func gatherHIP(ctx context.Context, g *gctx) func(*snapshot.Snapshot)        { return nil }
func gatherMSVC(ctx context.Context, g *gctx) func(*snapshot.Snapshot)       { return nil }
func gatherWindows(ctx context.Context, g *gctx) func(*snapshot.Snapshot)    { return nil }
func gatherWSL(ctx context.Context, g *gctx) func(*snapshot.Snapshot)        { return nil }
