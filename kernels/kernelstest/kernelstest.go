// Package kernelstest holds probe reports shared by the tests of the
// packages that print them (doctor --probe, probe). It is imported by tests
// only.
package kernelstest

import "github.com/llamactl/llamactl/kernels"

// PoCLDevice is PoCL's CPU device as the GPU-less CI machine names it.
const PoCLDevice = "cpu-skylake-avx512-AMD EPYC"

// CIStages are the stages the real probe gave on the GPU-less CI machine:
// CUDA compiled and linked but found no device (cudaDetail is the load
// stage's detail as the test needs it), and OpenCL ran and verified its
// kernel on PoCL's CPU device, which llama.cpp refuses (not a GPU).
func CIStages(cudaDetail string) []kernels.StageResult {
	dev := PoCLDevice
	cl := map[string]string{"device": dev, "type": "CPU", "opencl_c": "OpenCL C 1.2 PoCL", "platform": "Portable Computing Language"}
	return []kernels.StageResult{
		{Kind: "cuda", Stage: kernels.StageCompile, OK: true},
		{Kind: "cuda", Stage: kernels.StageLink, OK: true},
		{Kind: "cuda", Stage: kernels.StageLoad, FailureID: "cuda-no-device", Detail: cudaDetail,
			Facts: map[string]string{"nvcc_version": "11.8.89", "host": "/usr/bin/g++-11", "archs": "90-real"}},
		{Kind: "opencl", Stage: kernels.StageEnumerate, OK: true, Detail: "1 platform, 1 device through libOpenCL.so.1"},
		{Kind: "opencl", Stage: kernels.StageBuild, Device: dev, OK: true, Facts: cl},
		{Kind: "opencl", Stage: kernels.StageRun, Device: dev, OK: true, Facts: cl},
		{Kind: "opencl", Stage: kernels.StageVerify, Device: dev, OK: true, Detail: "1048576 elements correct", Facts: cl},
		{Kind: "opencl", Stage: kernels.StageAccept, Device: dev, FailureID: "opencl-unsupported-gpu", Detail: "it is not a GPU (CPU)",
			Facts: map[string]string{"device": dev, "reason": "it is not a GPU (CPU)", "type": "CPU", "opencl_c": "OpenCL C 1.2 PoCL"}},
	}
}
