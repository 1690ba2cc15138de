// The CUDA backend of the fixture: a real kernel compiled by nvcc for the
// configured architectures, and a device query through the CUDA runtime.
#include <cstdio>
#include <cuda_runtime.h>
#include "fixture-backend.h"

__global__ void fixture_scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

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
        off += snprintf(buf + off, len - off, "CUDA%d: %s (%zu MiB, %zu MiB free)\n", i, p.name,
                        total_b >> 20, free_b >> 20);
    }
    return n;
}
