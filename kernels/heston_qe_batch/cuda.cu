// heston_qe_batch (see kernel.toml): heston_qe_mc for `products` products in one launch. CUDA
// block b is block c = b mod B of product i = b / B (B = ceil(pairs / TENOR_BLOCK)), computed by
// the shared code's tenor_heston_qe_block, the code of heston_qe_mc's blocks: bitwise the same
// partials as heston_qe_mc launched for product i alone.
extern "C" __global__ void __launch_bounds__(TENOR_THREADS)
    heston_qe_batch(double* __restrict__ partials, const u32* __restrict__ steps, const double* __restrict__ spot,
                    const double* __restrict__ strike, const u32* __restrict__ is_call,
                    const double* __restrict__ drift_dt, const double* __restrict__ dt, const double* __restrict__ v0,
                    const double* __restrict__ kappa, const double* __restrict__ theta,
                    const double* __restrict__ sigma, const double* __restrict__ rho,
                    const double* __restrict__ discount, u32 products, u64 seed, u64 pairs, u64 items) {
    const u64 per_product = max((pairs + TENOR_BLOCK - 1) / TENOR_BLOCK, (u64)1);
    const u64 b = blockIdx.x;
    const u64 i = b / per_product;
    if (i >= products) {
        return;
    }
    tenor_heston_qe_block(partials + 2 * i * per_product, b % per_product, seed, pairs, steps[i], spot[i], strike[i],
                          is_call[i], drift_dt[i], dt[i], v0[i], kappa[i], theta[i], sigma[i], rho[i], discount[i]);
}
