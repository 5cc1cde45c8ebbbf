// mc_european_batch (see kernel.toml): mc_european for `products` products in one launch. CUDA
// block b is block c = b mod B of product i = b / B (B = ceil(pairs / TENOR_BLOCK)), computed by
// the prelude's tenor_mc_european_block, the code of mc_european's blocks: bitwise the same
// partials as mc_european launched for product i alone.
static_assert(TENOR_BLOCK % 2u == 0u, "mc_european_batch: blocks hold whole Philox calls (pairs 2j, 2j + 1)");

extern "C" __global__ void __launch_bounds__(TENOR_THREADS)
    mc_european_batch(double* __restrict__ partials, const double* __restrict__ spot,
                      const double* __restrict__ strike, const u32* __restrict__ is_call,
                      const double* __restrict__ drift, const double* __restrict__ vol_sqrt_t,
                      const double* __restrict__ discount, u32 products, u64 seed, u64 pairs, u64 items) {
    const u64 per_product = max((pairs + TENOR_BLOCK - 1) / TENOR_BLOCK, (u64)1);
    const u64 b = blockIdx.x;
    const u64 i = b / per_product;
    if (i >= products) {
        return;
    }
    tenor_mc_european_block(partials + 2 * b, b % per_product, seed, pairs, spot[i], strike[i], is_call[i], drift[i],
                            vol_sqrt_t[i], discount[i]);
}
