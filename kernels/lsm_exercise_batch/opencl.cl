// lsm_exercise_batch (see kernel.toml): lsm_exercise for many products in one launch, the shared
// code's tenor_lsm_exercise_batch.
__kernel void lsm_exercise_batch(__global const double* restrict spots, __global double* restrict cash,
                                 __global const double* restrict coef, __global const double* restrict strike,
                                 __global const double* restrict sign, __global const double* restrict df,
                                 uint products, ulong paths, uint steps, uint step, uint nbasis, ulong items) {
    tenor_lsm_exercise_batch(spots, cash, coef, strike, sign, df, products, paths, steps, step, nbasis, items);
}
