// mc_european_f32 (see kernel.toml): mc_european in fp32, partial sums in fp64.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void mc_european_f32(double *partials, uint64_t seed, uint64_t pairs, float spot, float strike, uint32_t is_call,
                     float drift, float vol_sqrt_t, float discount) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, pairs);
    float w = is_call != 0u ? 1.0f : -1.0f;
    double sum = 0.0, sum_sq = 0.0;
    for (uint64_t i = tenor::block_first(it); i < end; i += it.get_local_range(0)) {
        float z = tenor::normal_f32(seed, i, 0);
        float up = spot * sycl::exp(drift + vol_sqrt_t * z);
        float dn = spot * sycl::exp(drift - vol_sqrt_t * z);
        double y = static_cast<double>(discount * (sycl::fmax(w * (up - strike), 0.0f) +
                                                   sycl::fmax(w * (dn - strike), 0.0f)) * 0.5f);
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
