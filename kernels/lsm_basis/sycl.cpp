// lsm_basis (see kernel.toml): Longstaff-Schwartz regression rows at exercise date `step`, the
// shared code's tenor_lsm_basis.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void lsm_basis(const double *spots, const double *cash, double *design, uint64_t paths, uint32_t step,
               uint32_t nbasis, double strike, double sign, double df) {
    tenor_lsm_basis(spots, cash, design, paths, step, nbasis, strike, sign, df);
}
