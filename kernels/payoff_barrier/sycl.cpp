// payoff_barrier (see kernel.toml): discounted barrier value of each path, the shared code's
// tenor_payoff_barrier.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void payoff_barrier(const double *paths_in, double *out, uint64_t paths, uint32_t steps, double spot, double strike,
                    double barrier, double rebate, uint32_t is_call, uint32_t kind, uint32_t continuous,
                    double vol_sqrt_dt, double rate_dt, double discount) {
    tenor_payoff_barrier(paths_in, out, paths, steps, spot, strike, barrier, rebate, is_call, kind, continuous,
                         vol_sqrt_dt, rate_dt, discount);
}
