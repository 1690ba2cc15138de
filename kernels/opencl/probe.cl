// llamactl OpenCL probe kernel: one vector add, verified on the host. It uses
// only OpenCL C 1.2 so that a build failure means the platform, not the probe.
__kernel void vadd(__global const float *a, __global const float *b, __global float *c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
