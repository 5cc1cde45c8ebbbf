// mc_european_f32 (see kernel.toml): mc_european in fp32, partial sums in fp64. (The CUDA source
// computes the same quantities with CUDA's fast intrinsics, so the two are not one code.)
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void mc_european_f32(double *partials, uint64_t seed, uint64_t pairs, float spot, float strike, uint32_t is_call,
                     float drift, float vol_sqrt_t, float discount) {
    float w = is_call != 0u ? 1.0f : -1.0f;
    double v[2] = {0.0, 0.0};
    TENOR_FOR_ITEMS(i, pairs) {
        float z = tenor::normal_f32(seed, i, 0);
        float up = spot * sycl::exp(drift + vol_sqrt_t * z);
        float dn = spot * sycl::exp(drift - vol_sqrt_t * z);
        double y = static_cast<double>(discount * (sycl::fmax(w * (up - strike), 0.0f) +
                                                   sycl::fmax(w * (dn - strike), 0.0f)) * 0.5f);
        v[0] += y;
        v[1] += y * y;
    }
    TENOR_BLOCK_SUMS(v, 2, partials);
}
