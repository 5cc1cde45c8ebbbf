// lsm_paths_batch (see kernel.toml): lsm_paths for many products in one launch, the shared
// code's tenor_lsm_paths_batch (lsm_paths's per-path code on each product's block).
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void lsm_paths_batch(double *out, const double *spot, const double *drift_dt, const double *vol_sqrt_dt,
                     uint32_t products, uint64_t seed, uint64_t paths, uint32_t steps, uint64_t items) {
    tenor_lsm_paths_batch(out, spot, drift_dt, vol_sqrt_dt, products, seed, paths, steps, items);
}
