// lsm_paths (see kernel.toml): antithetic step-major GBM paths for Longstaff-Schwartz, the shared
// code's tenor_lsm_paths.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void lsm_paths(double *out, uint64_t seed, uint64_t paths, uint32_t steps, double spot, double drift_dt,
               double vol_sqrt_dt) {
    tenor_lsm_paths(out, seed, paths, steps, spot, drift_dt, vol_sqrt_dt);
}
