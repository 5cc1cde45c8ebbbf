// payoff_asian (see kernel.toml): discounted arithmetic and geometric average-price payoffs.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void payoff_asian(const double *paths_in, double *out_arith, double *out_geo, uint64_t paths, uint32_t steps,
                  double spot, uint32_t spot_fixing, double strike, uint32_t is_call, double discount) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, paths);
    double w = is_call != 0u ? 1.0 : -1.0;
    double n = static_cast<double>(steps + (spot_fixing != 0u ? 1u : 0u));
    double s0 = spot_fixing != 0u ? spot : 0.0;
    double l0 = spot_fixing != 0u ? sycl::log(spot) : 0.0;
    for (uint64_t p = tenor::block_first(it); p < end; p += it.get_local_range(0)) {
        double sum = s0, sum_log = l0;
        for (uint64_t k = 0; k < steps; ++k) {
            double s = paths_in[k * paths + p];
            sum += s;
            sum_log += sycl::log(s);
        }
        double a = sum / n, g = sycl::exp(sum_log / n);
        out_arith[p] = discount * sycl::fmax(w * (a - strike), 0.0);
        out_geo[p] = discount * sycl::fmax(w * (g - strike), 0.0);
    }
}
