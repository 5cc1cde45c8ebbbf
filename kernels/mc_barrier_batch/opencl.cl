// mc_barrier_batch (see kernel.toml): one launch for many barrier products, work-group g
// computing block g mod B of product g / B with the shared code's tenor_mc_barrier_block.
__kernel void mc_barrier_batch(__global double* restrict partials, __global const uint* restrict steps,
                               __global const double* restrict spot, __global const double* restrict strike,
                               __global const double* restrict barrier, __global const double* restrict rebate,
                               __global const uint* restrict is_call, __global const uint* restrict kind,
                               __global const uint* restrict continuous, __global const double* restrict drift_dt,
                               __global const double* restrict vol_sqrt_dt, __global const double* restrict rate_dt,
                               __global const double* restrict discount, uint products, ulong seed, ulong pairs,
                               ulong items) {
    TENOR_KERNEL_SCRATCH;
    (void)items;
    const ulong per_product = max((pairs + TENOR_BLOCK - 1) / TENOR_BLOCK, (ulong)1);
    const ulong g = TENOR_BLOCK_INDEX();
    const ulong i = g / per_product;
    if (i >= products) return;  // the whole work-group
    tenor_mc_barrier_block(partials + 2 * i * per_product, g % per_product, seed, pairs, steps[i], spot[i], strike[i],
                           barrier[i], rebate[i], is_call[i], kind[i], continuous[i], drift_dt[i], vol_sqrt_dt[i],
                           rate_dt[i], discount[i] TENOR_SCRATCH_ARG);
}
