// Longstaff-Schwartz regression rows at exercise date `step` (see kernel.toml): column j < nbasis
// holds L_j(S / strike) of the in-the-money paths, column nbasis df * cash[p]; 0 out of the money.
extern "C" __global__ void lsm_basis(const double* __restrict__ spots, const double* __restrict__ cash,
                                     double* __restrict__ design, u64 paths, u32 step, u32 nbasis, double strike,
                                     double sign, double df) {
    TENOR_FOR_ITEMS(p, paths) {
        const double s = spots[(u64)step * paths + p];
        const double h = fmax(sign * (s - strike), 0.0);
        const double x = s / strike;
        const bool itm = h > 0.0;
        for (u32 j = 0; j < nbasis; ++j) design[(u64)j * paths + p] = itm ? tenor_laguerre(j, x) : 0.0;
        design[(u64)nbasis * paths + p] = itm ? df * cash[p] : 0.0;
    }
}
