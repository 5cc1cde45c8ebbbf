// mc_asian (see kernel.toml): fused antithetic average-price Asian Monte Carlo, five block sums,
// by the shared code's tenor_mc_asian_f64.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void mc_asian(double *partials, uint64_t seed, uint64_t pairs, uint32_t steps, double spot, double strike,
              uint32_t is_call, uint32_t spot_fixing, double drift_first, double vol_first, double drift_dt,
              double vol_sqrt_dt, double discount) {
    tenor_mc_asian_f64(partials, seed, pairs, steps, spot, strike, is_call, spot_fixing, drift_first, vol_first,
                           drift_dt, vol_sqrt_dt, discount);
}
