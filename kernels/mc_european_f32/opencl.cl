// mc_european_f32 (see kernel.toml): fused antithetic European Monte Carlo, fp32 paths, fp64
// block sums. Pair i takes the cosine normal of Philox call (seed, path i, block 0), words 0
// and 1; exp(drift -/+ v z) as spot exp(drift) times exp(v z) and its quotient (the
// TENOR_F32_ functions of prelude.cl: accurate by default, native with -DTENOR_NATIVE_F32).
__kernel void mc_european_f32(__global double* restrict partials, ulong seed, ulong pairs, float spot, float strike,
                              uint is_call, float drift, float vol_sqrt_t, float discount) {
    TENOR_KERNEL_SCRATCH;
    const float w = is_call != 0u ? 1.0f : -1.0f;
    const uint k0 = (uint)seed, k1 = (uint)(seed >> 32);
    const float spot_fwd = spot * exp(drift);
    double v[2] = {0.0, 0.0};
    TENOR_FOR_ITEMS(i, pairs) {
        tenor_u32x4 c;
        c.x = 0u; c.y = 0u; c.z = (uint)i; c.w = (uint)(i >> 32);
        const tenor_u32x4 x = tenor_philox4x32_10(c, k0, k1);
        const float r = sqrt(-2.0f * TENOR_F32_LOG(tenor_uniform_f32(x.x)));
        const float z = r * TENOR_F32_COS(2.0f * 3.14159265358979323846f * tenor_uniform_f32(x.y));
        const float e = TENOR_F32_EXP(vol_sqrt_t * z);
        const float up = spot_fwd * e;
        const float dn = TENOR_F32_DIV(spot_fwd, e);
        const double y = (double)(discount * (fmax(w * (up - strike), 0.0f) + fmax(w * (dn - strike), 0.0f)) * 0.5f);
        v[0] += y;
        v[1] += y * y;
    }
    TENOR_BLOCK_SUMS(v, 2, partials);
}
