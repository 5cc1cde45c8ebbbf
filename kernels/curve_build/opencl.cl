// curve_build (see kernel.toml): one par-yield bootstrap per item, the shared code's
// tenor_curve_build_one (kernels/common/shared.h), as cuda.cu and sycl.cpp.
__kernel void curve_build(__global const double* restrict par, __global const double* restrict tenors,
                          __global double* restrict log_df, ulong n, uint m) {
    double times[TENOR_CURVE_MAX_TENORS + 1u];
    double logs[TENOR_CURVE_MAX_TENORS + 1u];
    const bool valid = tenor_curve_grid(tenors, m, times, logs);
    TENOR_FOR_ITEMS(c, n) tenor_curve_build_one(par, log_df, n, c, m, valid, times, logs);
}
