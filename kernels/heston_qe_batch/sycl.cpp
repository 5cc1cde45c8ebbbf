// heston_qe_batch (see kernel.toml): heston_qe_mc for `products` products in one launch.
// Work-group g is block c = g mod B of product i = g / B (B = ceil(pairs / TENOR_BLOCK)),
// computed by the shared code's tenor_heston_qe_block, the code of heston_qe_mc's work-groups:
// bitwise the same partials as heston_qe_mc launched for product i alone.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void heston_qe_batch(double *partials, const uint32_t *steps, const double *spot, const double *strike,
                     const uint32_t *is_call, const double *drift_dt, const double *dt, const double *v0,
                     const double *kappa, const double *theta, const double *sigma, const double *rho,
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
    tenor_heston_qe_block(partials + 2 * i * per_product, g % per_product, seed, pairs, steps[i], spot[i], strike[i],
                          is_call[i], drift_dt[i], dt[i], v0[i], kappa[i], theta[i], sigma[i], rho[i], discount[i]);
}
