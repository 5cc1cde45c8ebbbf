// Fused antithetic Monte Carlo European, fp64 (see kernel.toml). Work item p is antithetic pair
// p; CUDA block b computes the manifest's block b with the prelude's tenor_mc_european_block
// (shared with mc_european_batch; method, tuning and accuracy are described there).
static_assert(TENOR_BLOCK % 2u == 0u, "mc_european: blocks hold whole Philox calls (pairs 2j, 2j + 1)");

extern "C" __global__ void __launch_bounds__(TENOR_THREADS) mc_european(double* __restrict__ partials, u64 seed,
                                                                         u64 pairs, double spot, double strike,
                                                                         u32 is_call, double drift, double vol_sqrt_t,
                                                                         double discount) {
    tenor_mc_european_block(partials + 2 * (u64)blockIdx.x, blockIdx.x, seed, pairs, spot, strike, is_call, drift,
                            vol_sqrt_t, discount);
}
