// Longstaff-Schwartz regression rows at exercise date `step` (see kernel.toml): the shared code's
// tenor_lsm_basis.
extern "C" __global__ void lsm_basis(const double* __restrict__ spots, const double* __restrict__ cash,
                                     double* __restrict__ design, u64 paths, u32 step, u32 nbasis, double strike,
                                     double sign, double df) {
    tenor_lsm_basis(spots, cash, design, paths, step, nbasis, strike, sign, df);
}
