// heston_qe (see kernel.toml): Heston terminal spots by Andersen's (2008) quadratic-exponential
// scheme with martingale correction, the shared code's tenor_heston_qe.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void heston_qe(double *out, uint64_t seed, uint64_t paths, uint32_t steps, double spot, double drift_dt, double dt,
               double v0, double kappa, double theta, double sigma, double rho) {
    tenor_heston_qe(out, seed, paths, steps, spot, drift_dt, dt, v0, kappa, theta, sigma, rho);
}
