// lsm_normal_batch (see kernel.toml): the Longstaff-Schwartz normal equations of many products
// in chunks of paths, one work-item per chunk, the shared code's tenor_lsm_normal_batch.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void lsm_normal_batch(double *partials, const double *spots, const double *cash, const double *strike,
                      const double *sign, const double *df, uint32_t products, uint64_t paths, uint32_t steps,
                      uint32_t step, uint32_t nbasis, uint64_t chunk, uint64_t items) {
    tenor_lsm_normal_batch(partials, spots, cash, strike, sign, df, products, paths, steps, step, nbasis, chunk, items);
}
