// mc_asian_batch (see kernel.toml): mc_asian for `products` products in one launch. Work-group
// g is block c = g mod B of product i = g / B (B = ceil(pairs / TENOR_BLOCK)), computed by the
// shared code's tenor_mc_asian_block_f64, the code of mc_asian's work-groups: bitwise the
// same partials as mc_asian launched for product i alone.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void mc_asian_batch(double *partials, const uint32_t *steps, const double *spot, const double *strike,
                    const uint32_t *is_call, const uint32_t *spot_fixing, const double *drift_first,
                    const double *vol_first, const double *drift_dt, const double *vol_sqrt_dt,
                    const double *discount, uint32_t products, uint64_t seed, uint64_t pairs, uint64_t items) {
    (void)items;
    uint64_t per_product = (pairs + TENOR_BLOCK - 1) / TENOR_BLOCK;
    if (per_product == 0) {
        per_product = 1;
    }
    uint64_t g = TENOR_BLOCK_INDEX();
    uint64_t i = g / per_product;
    if (i >= products) {
        return;
    }
    tenor_mc_asian_block_f64(partials + 5 * i * per_product, g % per_product, seed, pairs, steps[i], spot[i],
                                 strike[i], is_call[i], spot_fixing[i], drift_first[i], vol_first[i], drift_dt[i],
                                 vol_sqrt_dt[i], discount[i]);
}
