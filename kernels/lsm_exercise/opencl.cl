// lsm_exercise (see kernel.toml): Longstaff-Schwartz exercise decision, the shared code's
// tenor_lsm_exercise.
__kernel void lsm_exercise(__global const double* restrict spots, __global double* restrict cash,
                           __global const double* restrict coef, ulong paths, uint step, uint nbasis, double strike,
                           double sign, double df) {
    tenor_lsm_exercise(spots, cash, coef, paths, step, nbasis, strike, sign, df);
}
