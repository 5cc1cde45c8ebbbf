// lsm_basis (see kernel.toml): Longstaff-Schwartz regression rows, the shared code's tenor_lsm_basis.
__kernel void lsm_basis(__global const double* restrict spots, __global const double* restrict cash,
                        __global double* restrict design, ulong paths, uint step, uint nbasis, double strike,
                        double sign, double df) {
    tenor_lsm_basis(spots, cash, design, paths, step, nbasis, strike, sign, df);
}
