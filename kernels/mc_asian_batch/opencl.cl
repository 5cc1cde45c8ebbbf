// mc_asian_batch (see kernel.toml): one launch for many Asian products, work-group g computing
// block g mod B of product g / B with the shared code's tenor_mc_asian_block_f64 (bitwise
// mc_asian's blocks).
__kernel void mc_asian_batch(__global double* restrict partials, __global const uint* restrict steps,
                             __global const double* restrict spot, __global const double* restrict strike,
                             __global const uint* restrict is_call, __global const uint* restrict spot_fixing,
                             __global const double* restrict drift_first, __global const double* restrict vol_first,
                             __global const double* restrict drift_dt, __global const double* restrict vol_sqrt_dt,
                             __global const double* restrict discount, uint products, ulong seed, ulong pairs,
                             ulong items) {
    TENOR_KERNEL_SCRATCH;
    (void)items;
    const ulong per_product = max((pairs + TENOR_BLOCK - 1) / TENOR_BLOCK, (ulong)1);
    const ulong g = TENOR_BLOCK_INDEX();
    const ulong i = g / per_product;
    if (i >= products) return;  // the whole work-group: no barrier is skipped by part of it
    tenor_mc_asian_block_f64(partials + 5 * i * per_product, g % per_product, seed, pairs, steps[i], spot[i],
                             strike[i], is_call[i], spot_fixing[i], drift_first[i], vol_first[i], drift_dt[i],
                             vol_sqrt_dt[i], discount[i] TENOR_SCRATCH_ARG);
}
