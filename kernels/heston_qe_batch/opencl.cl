// heston_qe_batch (see kernel.toml): one launch for many Heston products, work-group g
// computing block g mod B of product g / B with the shared code's tenor_heston_qe_block
// (bitwise heston_qe_mc's blocks).
__kernel void heston_qe_batch(__global double* restrict partials, __global const uint* restrict steps,
                              __global const double* restrict spot, __global const double* restrict strike,
                              __global const uint* restrict is_call, __global const double* restrict drift_dt,
                              __global const double* restrict dt, __global const double* restrict v0,
                              __global const double* restrict kappa, __global const double* restrict theta,
                              __global const double* restrict sigma, __global const double* restrict rho,
                              __global const double* restrict discount, uint products, ulong seed, ulong pairs,
                              ulong items) {
    TENOR_KERNEL_SCRATCH;
    (void)items;
    const ulong per_product = max((pairs + TENOR_BLOCK - 1) / TENOR_BLOCK, (ulong)1);
    const ulong g = TENOR_BLOCK_INDEX();
    const ulong i = g / per_product;
    if (i >= products) return;  // the whole work-group: no barrier is skipped by part of it
    tenor_heston_qe_block(partials + 2 * i * per_product, g % per_product, seed, pairs, steps[i], spot[i], strike[i],
                          is_call[i], drift_dt[i], dt[i], v0[i], kappa[i], theta[i], sigma[i], rho[i],
                          discount[i] TENOR_SCRATCH_ARG);
}
