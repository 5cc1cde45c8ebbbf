// mc_barrier (see kernel.toml): fused antithetic barrier Monte Carlo, the shared code's
// tenor_mc_barrier.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void mc_barrier(double *partials, uint64_t seed, uint64_t pairs, uint32_t steps, double spot, double strike,
                double barrier, double rebate, uint32_t is_call, uint32_t kind, uint32_t continuous, double drift_dt,
                double vol_sqrt_dt, double rate_dt, double discount) {
    tenor_mc_barrier(partials, seed, pairs, steps, spot, strike, barrier, rebate, is_call, kind, continuous, drift_dt,
                     vol_sqrt_dt, rate_dt, discount);
}
