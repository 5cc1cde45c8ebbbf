// lsm_normal_batch (see kernel.toml): the Longstaff-Schwartz normal equations of many products
// in chunks of paths, one thread per chunk, the shared code's tenor_lsm_normal_batch.
extern "C" __global__ void lsm_normal_batch(double* __restrict__ partials, const double* __restrict__ spots,
                                            const double* __restrict__ cash, const double* __restrict__ strike,
                                            const double* __restrict__ sign, const double* __restrict__ df,
                                            u32 products, u64 paths, u32 steps, u32 step, u32 nbasis, u64 chunk,
                                            u64 items) {
    tenor_lsm_normal_batch(partials, spots, cash, strike, sign, df, products, paths, steps, step, nbasis, chunk, items);
}
