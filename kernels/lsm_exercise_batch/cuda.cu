// lsm_exercise_batch (see kernel.toml): lsm_exercise for `products` products in one launch,
// thread g deciding path g mod paths of product g / paths with the shared code's
// tenor_lsm_exercise_path (through tenor_lsm_exercise_batch), the per-path code of
// lsm_exercise: bitwise the same cash flows.
extern "C" __global__ void lsm_exercise_batch(const double* __restrict__ spots, double* __restrict__ cash,
                                              const double* __restrict__ coef, const double* __restrict__ strike,
                                              const double* __restrict__ sign, const double* __restrict__ df,
                                              u32 products, u64 paths, u32 steps, u32 step, u32 nbasis, u64 items) {
    tenor_lsm_exercise_batch(spots, cash, coef, strike, sign, df, products, paths, steps, step, nbasis, items);
}
