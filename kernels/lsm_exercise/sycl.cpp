// lsm_exercise (see kernel.toml): Longstaff-Schwartz exercise decision at exercise date `step`,
// the shared code's tenor_lsm_exercise.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void lsm_exercise(const double *spots, double *cash, const double *coef, uint64_t paths, uint32_t step,
                  uint32_t nbasis, double strike, double sign, double df) {
    tenor_lsm_exercise(spots, cash, coef, paths, step, nbasis, strike, sign, df);
}
