// lsm_exercise_batch (see kernel.toml): lsm_exercise for many products in one launch, the
// shared code's tenor_lsm_exercise_batch (lsm_exercise's per-path code on each product's block).
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void lsm_exercise_batch(const double *spots, double *cash, const double *coef, const double *strike,
                        const double *sign, const double *df, uint32_t products, uint64_t paths, uint32_t steps,
                        uint32_t step, uint32_t nbasis, uint64_t items) {
    tenor_lsm_exercise_batch(spots, cash, coef, strike, sign, df, products, paths, steps, step, nbasis, items);
}
