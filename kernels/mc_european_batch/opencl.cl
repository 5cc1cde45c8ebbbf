// mc_european_batch (see kernel.toml): one launch for many European products, work-group g
// computing block g mod B of product g / B with tenor_mc_european_block (bitwise mc_european's).
#if TENOR_BLOCK % 2u != 0u
#error "mc_european_batch: blocks hold whole Philox calls (pairs 2j, 2j + 1)"
#endif
__kernel void mc_european_batch(__global double* restrict partials, __global const double* restrict spot,
                                __global const double* restrict strike, __global const uint* restrict is_call,
                                __global const double* restrict drift, __global const double* restrict vol_sqrt_t,
                                __global const double* restrict discount, uint products, ulong seed, ulong pairs,
                                ulong items) {
    TENOR_KERNEL_SCRATCH;
    (void)items;
    const ulong per_product = max((pairs + TENOR_BLOCK - 1) / TENOR_BLOCK, (ulong)1);
    const ulong g = get_group_id(0);
    const ulong i = g / per_product;
    if (i >= products) return;  // the whole work-group
    tenor_mc_european_block(partials + 2 * g, g % per_product, seed, pairs, spot[i], strike[i], is_call[i], drift[i],
                            vol_sqrt_t[i], discount[i], tenor_scratch);
}
