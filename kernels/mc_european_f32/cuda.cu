// Fused antithetic Monte Carlo European, fp32 path arithmetic, fp64 block sums (see
// kernel.toml). Philox in registers, fast log, cosine, exponential and division, two pairs per loop
// iteration (independent Philox chains interleave).
extern "C" __global__ void __launch_bounds__(TENOR_THREADS) mc_european_f32(double* __restrict__ partials, u64 seed,
                                                                             u64 pairs, float spot, float strike,
                                                                             u32 is_call, float drift,
                                                                             float vol_sqrt_t, float discount) {
    const float w = is_call != 0u ? 1.0f : -1.0f;
    const u32 k0 = (u32)seed, k1 = (u32)(seed >> 32);
    const float spot_fwd = spot * expf(drift);
    double v[2] = {0.0, 0.0};
#pragma unroll 2
    TENOR_FOR_ITEMS(i, pairs) {
        tenor_u32x4 c;
        c.x = 0u; c.y = 0u; c.z = (u32)i; c.w = (u32)(i >> 32);
        const tenor_u32x4 x = tenor_philox4x32_10(c, k0, k1);
        const float z = tenor_box_muller_cos_f32(x.x, x.y);
        // exp(drift -/+ v z) = exp(drift) exp(-/+ v z): one exponential and a division, both
        // the fast intrinsics (|v z| is small, so __expf is within a few ulp; __fdividef 2 ulp).
        const float e = __expf(vol_sqrt_t * z);
        const float up = spot_fwd * e;
        const float dn = __fdividef(spot_fwd, e);
        const double y = (double)(discount * (fmaxf(w * (up - strike), 0.0f) + fmaxf(w * (dn - strike), 0.0f)) * 0.5f);
        v[0] += y;
        v[1] += y * y;
    }
    TENOR_BLOCK_SUMS(v, 2, partials);
}
