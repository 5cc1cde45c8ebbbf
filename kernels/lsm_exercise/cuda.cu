// Longstaff-Schwartz exercise decision at exercise date `step` (see kernel.toml): the shared
// code's tenor_lsm_exercise.
extern "C" __global__ void lsm_exercise(const double* __restrict__ spots, double* __restrict__ cash,
                                        const double* __restrict__ coef, u64 paths, u32 step, u32 nbasis,
                                        double strike, double sign, double df) {
    tenor_lsm_exercise(spots, cash, coef, paths, step, nbasis, strike, sign, df);
}
