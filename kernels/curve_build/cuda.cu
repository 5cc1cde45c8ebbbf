// curve_build (see kernel.toml): one par-yield bootstrap per thread. The bootstrap is
// kernels/common/shared.h's (tenor_curve_grid, tenor_curve_build_one), shared with sycl.cpp; it
// follows kernels/src/curve.rs operation by operation. Tenor-major layout: thread c reads
// par[k * n + c] and writes log_df[k * n + c], so a warp's accesses at each tenor are one
// contiguous segment.
extern "C" __global__ void curve_build(const double* __restrict__ par, const double* __restrict__ tenors,
                                       double* __restrict__ log_df, u64 n, u32 m) {
    double times[TENOR_CURVE_MAX_TENORS + 1u];
    double logs[TENOR_CURVE_MAX_TENORS + 1u];
    const bool valid = tenor_curve_grid(tenors, m, times, logs);
    TENOR_FOR_ITEMS(c, n) tenor_curve_build_one(par, log_df, n, c, m, valid, times, logs);
}
