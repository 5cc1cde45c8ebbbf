// Fused antithetic Monte Carlo fixed-strike Asian in fp32 path arithmetic, fp64 block sums
// (see kernel.toml). One Philox call gives four normals (a quad of steps) for both paths of
// the pair; the path state stays in registers.
struct tenor_asian_pair_f32 { float xu, xd, su, sd, lu, ld; };

__device__ __forceinline__ void tenor_asian_step_f32(tenor_asian_pair_f32& p, float d, float vz) {
    p.xu += d + vz;
    p.xd += d - vz;
    p.lu += p.xu;
    p.ld += p.xd;
    p.su += expf(p.xu);
    p.sd += expf(p.xd);
}

extern "C" __global__ void __launch_bounds__(TENOR_THREADS) mc_asian_f32(double* __restrict__ partials, u64 seed,
                                                                          u64 pairs, u32 steps, float spot,
                                                                          float strike, u32 is_call, u32 spot_fixing,
                                                                          float drift_first, float vol_first,
                                                                          float drift_dt, float vol_sqrt_dt,
                                                                          float discount) {
    const float w = is_call != 0u ? 1.0f : -1.0f;
    const float x0 = logf(spot);
    const float inv_n = 1.0f / (float)(steps + (spot_fixing != 0u ? 1u : 0u));
    const float s0 = spot_fixing != 0u ? spot : 0.0f, l0 = spot_fixing != 0u ? x0 : 0.0f;
    const float half_discount = 0.5f * discount;
    double v[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
    TENOR_FOR_ITEMS(i, pairs) {
        tenor_asian_pair_f32 p = {x0, x0, s0, s0, l0, l0};
        const u32 full = steps & ~3u;
        u32 k = 0;
        if (steps > 0u) {
            float z[4];
            tenor_normal_quad_f32(seed, i, 0u, z);
            tenor_asian_step_f32(p, drift_first, vol_first * z[0]);
#pragma unroll
            for (u32 j = 1; j < 4; ++j)
                if (j < steps) tenor_asian_step_f32(p, drift_dt, vol_sqrt_dt * z[j]);
            k = 4;
        }
        for (; k < full; k += 4) {
            float z[4];
            tenor_normal_quad_f32(seed, i, k >> 2, z);
#pragma unroll
            for (int j = 0; j < 4; ++j) tenor_asian_step_f32(p, drift_dt, vol_sqrt_dt * z[j]);
        }
        if (k < steps) {
            float z[4];
            tenor_normal_quad_f32(seed, i, k >> 2, z);
#pragma unroll
            for (u32 j = 0; j < 4; ++j)
                if (k + j < steps) tenor_asian_step_f32(p, drift_dt, vol_sqrt_dt * z[j]);
        }
        const float af = half_discount * (fmaxf(w * (p.su * inv_n - strike), 0.0f) +
                                          fmaxf(w * (p.sd * inv_n - strike), 0.0f));
        const float gf = half_discount * (fmaxf(w * (expf(p.lu * inv_n) - strike), 0.0f) +
                                          fmaxf(w * (expf(p.ld * inv_n) - strike), 0.0f));
        const double a = (double)af, g = (double)gf;
        v[0] += a;
        v[1] += a * a;
        v[2] += g;
        v[3] += g * g;
        v[4] += a * g;
    }
    tenor_block_sum<5>(v);
    if (threadIdx.x == 0) {
#pragma unroll
        for (int j = 0; j < 5; ++j) partials[5 * (u64)blockIdx.x + j] = v[j];
    }
}
