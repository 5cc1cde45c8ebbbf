// mc_european (see kernel.toml): fused antithetic European Monte Carlo, per-block partial sums.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void mc_european(double *partials, uint64_t seed, uint64_t pairs, double spot, double strike, uint32_t is_call,
                 double drift, double vol_sqrt_t, double discount) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, pairs);
    double w = is_call != 0u ? 1.0 : -1.0;
    double half_discount = 0.5 * discount;
    double sum = 0.0, sum_sq = 0.0;
    for (uint64_t i = tenor::block_first(it); i < end; i += it.get_local_range(0)) {
        double z = tenor::normal_f64(seed, i, 0);
        double up = spot * sycl::exp(drift + vol_sqrt_t * z);
        double dn = spot * sycl::exp(drift - vol_sqrt_t * z);
        double y = half_discount * (sycl::fmax(w * (up - strike), 0.0) + sycl::fmax(w * (dn - strike), 0.0));
        sum += y;
        sum_sq += y * y;
    }
    sum = tenor::group_sum(it, sum);
    sum_sq = tenor::group_sum(it, sum_sq);
    if (it.get_local_id(0) == 0) {
        partials[2 * it.get_group(0)] = sum;
        partials[2 * it.get_group(0) + 1] = sum_sq;
    }
}
