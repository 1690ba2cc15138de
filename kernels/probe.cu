// llamactl CUDA probe: proves that nvcc, the host compiler, the chosen
// -gencode targets, the driver and the GPU work together end to end.
// Output is one "LLAMACTL <stage> key=value ..." line per fact so the Go side
// can parse it without a JSON library here. Modes: "load" (runtime + devices)
// and "run" (kernel, verification, bandwidth). Exit codes: 0 ok, 2 load
// failed, 3 run failed, 4 verify failed, 5 usage.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1 << 20)
#define BW_BYTES (64u << 20)

__global__ void vadd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void copyk(const float4 *src, float4 *dst, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (; i < n; i += stride) dst[i] = src[i];
}

static int fail(const char *stage, const char *api, cudaError_t e, int code) {
    printf("LLAMACTL %s ok=0 api=%s code=%d name=%s msg=\"%s\"\n", stage, api, (int)e,
           cudaGetErrorName(e), cudaGetErrorString(e));
    return code;
}

#define CHECK(stage, call, code)                                   \
    do {                                                           \
        cudaError_t e_ = (call);                                   \
        if (e_ != cudaSuccess) return fail(stage, #call, e_, code); \
    } while (0)

static int load(void) {
    int rt = 0, drv = 0, count = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    /* cudaRuntimeGetVersion answers 0 on some machines without a device;
       CUDART_VERSION is the runtime the probe was built against. */
    printf("LLAMACTL load runtime_version=%d built_runtime=%d driver_version=%d\n", rt, CUDART_VERSION, drv);
    CHECK("load", cudaGetDeviceCount(&count), 2);
    for (int d = 0; d < count; d++) {
        cudaDeviceProp p;
        CHECK("load", cudaGetDeviceProperties(&p, d), 2);
        printf("LLAMACTL device index=%d cc=%d.%d mem_mib=%zu name=\"%s\"\n", d, p.major, p.minor,
               p.totalGlobalMem >> 20, p.name);
    }
    printf("LLAMACTL load ok=1 device_count=%d\n", count);
    return 0;
}

static int run(int dev) {
    float *ha, *hb, *hc, *da, *db, *dc;
    size_t sz = N * sizeof(float);
    CHECK("run", cudaSetDevice(dev), 3);
    ha = (float *)malloc(sz); hb = (float *)malloc(sz); hc = (float *)malloc(sz);
    if (!ha || !hb || !hc) { printf("LLAMACTL run ok=0 msg=\"host malloc failed\"\n"); return 3; }
    for (int i = 0; i < N; i++) { ha[i] = (float)i; hb[i] = 2.0f * (float)(i % 1000); }
    CHECK("run", cudaMalloc(&da, sz), 3);
    CHECK("run", cudaMalloc(&db, sz), 3);
    CHECK("run", cudaMalloc(&dc, sz), 3);
    CHECK("run", cudaMemcpy(da, ha, sz, cudaMemcpyHostToDevice), 3);
    CHECK("run", cudaMemcpy(db, hb, sz, cudaMemcpyHostToDevice), 3);
    vadd<<<(N + 255) / 256, 256>>>(da, db, dc, N);
    CHECK("run", cudaGetLastError(), 3); /* "no kernel image" shows up here */
    CHECK("run", cudaDeviceSynchronize(), 3);
    CHECK("run", cudaMemcpy(hc, dc, sz, cudaMemcpyDeviceToHost), 3);
    printf("LLAMACTL run ok=1 device=%d\n", dev);

    int bad = 0;
    for (int i = 0; i < N; i++)
        if (hc[i] != ha[i] + hb[i]) bad++;
    if (bad) { printf("LLAMACTL verify ok=0 mismatches=%d of=%d\n", bad, N); return 4; }
    printf("LLAMACTL verify ok=1 elements=%d\n", N);

    /* Bandwidth: device-to-device copy kernel and pinned host-to-device copy. */
    float4 *s, *t; void *pinned; cudaEvent_t e0, e1; float ms = 0;
    CHECK("run", cudaMalloc(&s, BW_BYTES), 3);
    CHECK("run", cudaMalloc(&t, BW_BYTES), 3);
    CHECK("run", cudaMallocHost(&pinned, BW_BYTES), 3);
    memset(pinned, 1, BW_BYTES);
    cudaEventCreate(&e0); cudaEventCreate(&e1);
    size_t n4 = BW_BYTES / sizeof(float4);
    copyk<<<1024, 256>>>(s, t, n4); /* warm-up */
    cudaEventRecord(e0);
    for (int r = 0; r < 10; r++) copyk<<<1024, 256>>>(s, t, n4);
    cudaEventRecord(e1);
    CHECK("run", cudaEventSynchronize(e1), 3);
    cudaEventElapsedTime(&ms, e0, e1);
    double dev_gbps = ms > 0 ? (2.0 * BW_BYTES * 10) / (ms * 1e6) : 0; /* read + write */
    cudaEventRecord(e0);
    for (int r = 0; r < 5; r++) cudaMemcpyAsync(s, pinned, BW_BYTES, cudaMemcpyHostToDevice);
    cudaEventRecord(e1);
    CHECK("run", cudaEventSynchronize(e1), 3);
    cudaEventElapsedTime(&ms, e0, e1);
    double h2d_gbps = ms > 0 ? ((double)BW_BYTES * 5) / (ms * 1e6) : 0;
    cudaEventRecord(e0);
    for (int r = 0; r < 5; r++) cudaMemcpyAsync(pinned, s, BW_BYTES, cudaMemcpyDeviceToHost);
    cudaEventRecord(e1);
    CHECK("run", cudaEventSynchronize(e1), 3);
    cudaEventElapsedTime(&ms, e0, e1);
    double d2h_gbps = ms > 0 ? ((double)BW_BYTES * 5) / (ms * 1e6) : 0;
    printf("LLAMACTL bandwidth device_gbps=%.1f h2d_gbps=%.1f d2h_gbps=%.1f\n", dev_gbps, h2d_gbps, d2h_gbps);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "load") == 0) return load();
    if (argc >= 2 && strcmp(argv[1], "run") == 0) return run(argc >= 3 ? atoi(argv[2]) : 0);
    fprintf(stderr, "usage: %s load | run [device]\n", argv[0]);
    return 5;
}
