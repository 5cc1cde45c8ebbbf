// mc_european_f32 (see kernel.toml): mc_european in fp32, partial sums in fp64, the algorithm of
// the CUDA and OpenCL sources: pair i takes the cosine normal of Philox call (seed, path i,
// block 0), words 0 and 1; exp(drift -/+ v z) as spot exp(drift) times exp(v z) and its
// quotient. The fp32 log, cosine, exponential and division are the prelude's tenor::log_f32,
// cos_f32, exp_f32 and div_f32: CUDA's fast intrinsics on NVIDIA GPUs under AdaptiveCpp's
// generic target, SYCL's accurate built-ins elsewhere.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void mc_european_f32(double *partials, uint64_t seed, uint64_t pairs, float spot, float strike, uint32_t is_call,
                     float drift, float vol_sqrt_t, float discount) {
    const float w = is_call != 0u ? 1.0f : -1.0f;
    const uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
    const float spot_fwd = spot * sycl::exp(drift);
    double v[2] = {0.0, 0.0};
    TENOR_FOR_ITEMS(i, pairs) {
        const tenor::u32x4 x = tenor::philox4x32_10(
            tenor::u32x4{{0u, 0u, static_cast<uint32_t>(i), static_cast<uint32_t>(i >> 32)}}, k0, k1);
        const float z = tenor::box_muller_cos_f32(x.v[0], x.v[1]);
        const float e = tenor::exp_f32(vol_sqrt_t * z);
        const float up = spot_fwd * e;
        const float dn = tenor::div_f32(spot_fwd, e);
        const double y = static_cast<double>(discount * (sycl::fmax(w * (up - strike), 0.0f) +
                                                         sycl::fmax(w * (dn - strike), 0.0f)) * 0.5f);
        v[0] += y;
        v[1] += y * y;
    }
    TENOR_BLOCK_SUMS(v, 2, partials);
}
