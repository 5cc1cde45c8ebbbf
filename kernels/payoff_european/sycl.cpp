// payoff_european (see kernel.toml): discounted European payoff of each path's last value, the
// shared code's tenor_payoff_european.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void payoff_european(const double *paths_in, double *out, uint64_t paths, uint32_t steps, double strike,
                     uint32_t is_call, double discount) {
    tenor_payoff_european(paths_in, out, paths, steps, strike, is_call, discount);
}
