// mc_european (see kernel.toml): fused antithetic European Monte Carlo, fp64; work-group g
// computes the manifest's block g with the prelude's tenor_mc_european_block (prelude.cl,
// shared with mc_european_batch).
#if TENOR_BLOCK % 2u != 0u
#error "mc_european: blocks hold whole Philox calls (pairs 2j, 2j + 1)"
#endif
__kernel void mc_european(__global double* restrict partials, ulong seed, ulong pairs, double spot, double strike,
                          uint is_call, double drift, double vol_sqrt_t, double discount) {
    TENOR_KERNEL_SCRATCH;
    const ulong g = get_group_id(0);
    tenor_mc_european_block(partials + 2 * g, g, seed, pairs, spot, strike, is_call, drift, vol_sqrt_t, discount,
                            tenor_scratch);
}
