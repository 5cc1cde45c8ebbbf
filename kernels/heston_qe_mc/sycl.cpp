// heston_qe_mc (see kernel.toml): fused antithetic Heston QE Monte Carlo of a European option,
// the shared code's tenor_heston_qe_mc.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void heston_qe_mc(double *partials, uint64_t seed, uint64_t pairs, uint32_t steps, double spot, double strike,
                  uint32_t is_call, double drift_dt, double dt, double v0, double kappa, double theta, double sigma,
                  double rho, double discount) {
    tenor_heston_qe_mc(partials, seed, pairs, steps, spot, strike, is_call, drift_dt, dt, v0, kappa, theta, sigma, rho,
                       discount);
}
