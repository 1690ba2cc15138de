package probe

// gatherers lists what runs concurrently after the base, in the fixed order
// their results are merged.
func gatherers(goos string) []gatherer {
	gs := []gatherer{
		{"host", gatherHost},
		{"nvidia", gatherNVIDIA},
		{"cuda", gatherCUDA},
		{"compilers", gatherCompilers},
		{"build-tools", gatherBuildTools},
		{"opencl", gatherOpenCL},
		{"vulkan", gatherVulkan},
		{"hip", gatherHIP},
	}
	if isWin(goos) {
		gs = append(gs, gatherer{"msvc", gatherMSVC}, gatherer{"windows", gatherWindows})
	} else {
		gs = append(gs, gatherer{"wsl", gatherWSL})
	}
	return gs
}
