// payoff_barrier (see kernel.toml): discounted barrier value of each path (the shared code's
// tenor_barrier_*).
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void payoff_barrier(const double *paths_in, double *out, uint64_t paths, uint32_t steps, double spot, double strike,
                    double barrier, double rebate, uint32_t is_call, uint32_t kind, uint32_t continuous,
                    double vol_sqrt_dt, double rate_dt, double discount) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, paths);
    tenor_barrier_params prm =
        tenor_barrier_make(strike, barrier, rebate, is_call, kind, continuous, vol_sqrt_dt, rate_dt, discount);
    double x0 = sycl::log(spot);
    for (uint64_t p = tenor::block_first(it); p < end; p += it.get_local_range(0)) {
        tenor_barrier_path path = tenor_barrier_start(x0);
        for (uint32_t k = 0; k < steps; ++k)
            tenor_barrier_step(prm, path, k, sycl::log(paths_in[static_cast<uint64_t>(k) * paths + p]));
        out[p] = tenor_barrier_value(prm, path);
    }
}
