// gbm_paths (see kernel.toml): log-space GBM paths, step-major, first interval separate; the
// shared code's tenor_gbm_paths.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void gbm_paths(double *out, uint64_t seed, uint64_t paths, uint32_t steps, double spot, double drift_first,
               double vol_first, double drift_dt, double vol_sqrt_dt) {
    tenor_gbm_paths(out, seed, paths, steps, spot, drift_first, vol_first, drift_dt, vol_sqrt_dt);
}
