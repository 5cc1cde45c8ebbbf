// mc_asian_batch (see kernel.toml): mc_asian for `products` products in one launch. CUDA block b
// is block c = b mod B of product i = b / B (B = ceil(pairs / TENOR_BLOCK)), computed by the
// shared code's tenor_mc_asian_block_f64, the code of mc_asian's blocks: bitwise the same
// partials as mc_asian launched for product i alone.
extern "C" __global__ void __launch_bounds__(TENOR_THREADS)
    mc_asian_batch(double* __restrict__ partials, const u32* __restrict__ steps, const double* __restrict__ spot,
                   const double* __restrict__ strike, const u32* __restrict__ is_call,
                   const u32* __restrict__ spot_fixing, const double* __restrict__ drift_first,
                   const double* __restrict__ vol_first, const double* __restrict__ drift_dt,
                   const double* __restrict__ vol_sqrt_dt, const double* __restrict__ discount, u32 products, u64 seed,
                   u64 pairs, u64 items) {
    const u64 per_product = max((pairs + TENOR_BLOCK - 1) / TENOR_BLOCK, (u64)1);
    const u64 b = blockIdx.x;
    const u64 i = b / per_product;
    if (i >= products) {
        return;
    }
    tenor_mc_asian_block_f64(partials + 5 * i * per_product, b % per_product, seed, pairs, steps[i], spot[i],
                                 strike[i], is_call[i], spot_fixing[i], drift_first[i], vol_first[i], drift_dt[i],
                                 vol_sqrt_dt[i], discount[i]);
}
