// payoff_barrier (see kernel.toml): discounted barrier value of each path (tenor::BarrierPath).
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void payoff_barrier(const double *paths_in, double *out, uint64_t paths, uint32_t steps, double spot, double strike,
                    double barrier, double rebate, uint32_t is_call, uint32_t kind, uint32_t continuous,
                    double vol_sqrt_dt, double rate_dt, double discount) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, paths);
    tenor::BarrierParams prm =
        tenor::barrier_params(strike, barrier, rebate, is_call, kind, continuous, vol_sqrt_dt, rate_dt, discount);
    double x0 = sycl::log(spot);
    for (uint64_t p = tenor::block_first(it); p < end; p += it.get_local_range(0)) {
        tenor::BarrierPath path = tenor::barrier_path(x0);
        for (uint32_t k = 0; k < steps; ++k)
            path.step(prm, k, sycl::log(paths_in[static_cast<uint64_t>(k) * paths + p]));
        out[p] = path.value(prm);
    }
}
