// curve_build (see kernel.toml): one par-yield bootstrap per work-item. The bootstrap is
// kernels/common/shared.h's (tenor_curve_grid, tenor_curve_build_one), shared with cuda.cu; it
// follows kernels/src/curve.rs operation by operation. Tenor-major layout: work-item c reads
// par[k * n + c] and writes log_df[k * n + c], so neighbouring work-items touch neighbouring
// addresses.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void curve_build(const double *par, const double *tenors, double *log_df, uint64_t n, uint32_t m) {
    sycl::nd_item<1> it = tenor::item();
    double times[TENOR_CURVE_MAX_TENORS + 1u];
    double logs[TENOR_CURVE_MAX_TENORS + 1u];
    const bool valid = tenor_curve_grid(tenors, m, times, logs);
    uint64_t end = tenor::block_end(it, n);
    for (uint64_t c = tenor::block_first(it); c < end; c += it.get_local_range(0))
        tenor_curve_build_one(par, log_df, n, c, m, valid, times, logs);
}
