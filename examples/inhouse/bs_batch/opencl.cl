// bs_batch for OpenCL C (see kernel.toml), for the OpenCL backend: one work-group per
// manifest block of 256 items, one work-item per option, launched with a local size of 256.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void bs_batch(__global const double *spot, __global const double *strike, __global const double *vol,
                       __global const double *maturity, __global double *price, double rate, double dividend,
                       ulong n) {
    ulong i = get_global_id(0);
    if (i >= n) return;
    double s = spot[i], k = strike[i], v = vol[i], t = maturity[i];
    double sq = v * sqrt(t);
    double d1 = (log(s / k) + (rate - dividend + 0.5 * v * v) * t) / sq;
    double d2 = d1 - sq;
    price[i] = s * exp(-dividend * t) * 0.5 * erfc(-d1 * M_SQRT1_2) - k * exp(-rate * t) * 0.5 * erfc(-d2 * M_SQRT1_2);
}
