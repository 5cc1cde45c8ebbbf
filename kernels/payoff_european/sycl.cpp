// payoff_european (see kernel.toml): discounted European payoff of each path's last value.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void payoff_european(const double *paths_in, double *out, uint64_t paths, uint32_t steps, double strike,
                     uint32_t is_call, double discount) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, paths);
    double w = is_call != 0u ? 1.0 : -1.0;
    uint64_t last = static_cast<uint64_t>((steps > 0u ? steps : 1u) - 1u) * paths;
    for (uint64_t p = tenor::block_first(it); p < end; p += it.get_local_range(0))
        out[p] = discount * sycl::fmax(w * (paths_in[last + p] - strike), 0.0);
}
