// mc_european (see kernel.toml): fused antithetic European Monte Carlo, per-block partial sums.
// Work-group g computes the manifest's block g with the prelude's tenor::mc_european_block
// (shared with mc_european_batch).
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void mc_european(double *partials, uint64_t seed, uint64_t pairs, double spot, double strike, uint32_t is_call,
                 double drift, double vol_sqrt_t, double discount) {
    static_assert(TENOR_BLOCK % 2u == 0u, "mc_european: blocks hold whole Philox calls (pairs 2j, 2j + 1)");
    sycl::nd_item<1> it = tenor::item();
    uint64_t g = it.get_group(0);
    tenor::mc_european_block(it, partials + 2 * g, g, seed, pairs, spot, strike, is_call, drift, vol_sqrt_t,
                             discount);
}
