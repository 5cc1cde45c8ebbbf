// mc_barrier (see kernel.toml): fused antithetic barrier Monte Carlo, each pair's Y from the
// shared code's TENOR_MC_BARRIER_PAIR.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void mc_barrier(double *partials, uint64_t seed, uint64_t pairs, uint32_t steps, double spot, double strike,
                double barrier, double rebate, uint32_t is_call, uint32_t kind, uint32_t continuous, double drift_dt,
                double vol_sqrt_dt, double rate_dt, double discount) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, pairs);
    tenor_barrier_params prm =
        tenor_barrier_make(strike, barrier, rebate, is_call, kind, continuous, vol_sqrt_dt, rate_dt, discount);
    double x0 = sycl::log(spot);
    double sum = 0.0, sum_sq = 0.0;
    for (uint64_t i = tenor::block_first(it); i < end; i += it.get_local_range(0)) {
        TENOR_MC_BARRIER_PAIR(y, prm, seed, i, steps, x0, drift_dt, vol_sqrt_dt);
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
