// The CUDA backend of the fixture: a real kernel compiled by nvcc for the
// configured architectures, and a device query through the CUDA runtime.
#include <cstdio>
#include <cuda_runtime.h>
#ifndef GGML_CUDA_NO_VMM
#include <cuda.h>
#endif
#include "fixture-backend.h"

__global__ void fixture_scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

#ifndef GGML_CUDA_NO_VMM
// The virtual-memory granularity query llama.cpp's VMM pool makes (driver API).
static size_t fixture_vmm_granularity(int device) {
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t g = 0;
    if (cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) != CUDA_SUCCESS) return 0;
    return g;
}
#endif

extern "C" const char *fixture_backend_name(void) { return GGML_BACKEND_NAME; }

extern "C" int fixture_backend_devices(char *buf, int len) {
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        snprintf(buf, len, "ggml_cuda_init: failed to initialize CUDA: %s", cudaGetErrorString(err));
        return -1;
    }
    int off = 0;
    for (int i = 0; i < n && off < len; i++) {
        cudaDeviceProp p;
        cudaGetDeviceProperties(&p, i);
        size_t free_b = 0, total_b = 0;
        cudaSetDevice(i);
        cudaMemGetInfo(&free_b, &total_b);
        const char *vmm = "no";
#ifndef GGML_CUDA_NO_VMM
        vmm = fixture_vmm_granularity(i) > 0 ? "yes" : "no";
#endif
        off += snprintf(buf + off, len - off, "CUDA%d: %s (%zu MiB, %zu MiB free, VMM: %s)\n", i, p.name,
                        total_b >> 20, free_b >> 20, vmm);
    }
    return n;
}
