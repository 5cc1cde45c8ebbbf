// mc_european_batch (see kernel.toml): mc_european for `products` products in one launch.
// Work-group g is block c = g mod B of product i = g / B (B = ceil(pairs / TENOR_BLOCK)),
// computed by the prelude's tenor::mc_european_block, the code of mc_european's work-groups:
// bitwise the same partials as mc_european launched for product i alone.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void mc_european_batch(double *partials, const double *spot, const double *strike, const uint32_t *is_call,
                       const double *drift, const double *vol_sqrt_t, const double *discount, uint32_t products,
                       uint64_t seed, uint64_t pairs, uint64_t items) {
    static_assert(TENOR_BLOCK % 2u == 0u, "mc_european_batch: blocks hold whole Philox calls (pairs 2j, 2j + 1)");
    (void)items;
    sycl::nd_item<1> it = tenor::item();
    uint64_t per_product = (pairs + TENOR_BLOCK - 1) / TENOR_BLOCK;
    if (per_product == 0) {
        per_product = 1;
    }
    uint64_t g = it.get_group(0);
    uint64_t i = g / per_product;
    if (i >= products) {
        return;
    }
    tenor::mc_european_block(it, partials + 2 * g, g % per_product, seed, pairs, spot[i], strike[i], is_call[i],
                             drift[i], vol_sqrt_t[i], discount[i]);
}
