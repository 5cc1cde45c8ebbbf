// payoff_asian (see kernel.toml): discounted arithmetic and geometric average-price payoffs, the
// shared code's tenor_payoff_asian.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void payoff_asian(const double *paths_in, double *out_arith, double *out_geo, uint64_t paths, uint32_t steps,
                  double spot, uint32_t spot_fixing, double strike, uint32_t is_call, double discount) {
    tenor_payoff_asian(paths_in, out_arith, out_geo, paths, steps, spot, spot_fixing, strike, is_call, discount);
}
