// lsm_normal_batch (see kernel.toml): the Longstaff-Schwartz normal equations of many products in
// chunks of paths, the shared code's tenor_lsm_normal_batch.
__kernel void lsm_normal_batch(__global double* restrict partials, __global const double* restrict spots,
                               __global const double* restrict cash, __global const double* restrict strike,
                               __global const double* restrict sign, __global const double* restrict df,
                               uint products, ulong paths, uint steps, uint step, uint nbasis, ulong chunk,
                               ulong items) {
    tenor_lsm_normal_batch(partials, spots, cash, strike, sign, df, products, paths, steps, step, nbasis, chunk, items);
}
