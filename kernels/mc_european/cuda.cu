// Fused antithetic Monte Carlo European, fp64 (see kernel.toml). Each thread takes
// TENOR_BLOCK / TENOR_THREADS pairs of its block, sums in registers, then the block reduces
// with warp shuffles. Only the cosine normal (step 0) is needed, so sin is not computed.
// Results differ from the CPU reference by a few ulp per path (cospi, exp(drift) exp(vz)).
extern "C" __global__ void __launch_bounds__(TENOR_THREADS) mc_european(double* __restrict__ partials, u64 seed,
                                                                         u64 pairs, double spot, double strike,
                                                                         u32 is_call, double drift, double vol_sqrt_t,
                                                                         double discount) {
    const double w = is_call != 0u ? 1.0 : -1.0;
    const double half_discount = 0.5 * discount;
    const u32 k0 = (u32)seed, k1 = (u32)(seed >> 32);
    const double spot_fwd = spot * exp(drift);
    double v[2] = {0.0, 0.0};
#pragma unroll 2
    TENOR_FOR_ITEMS(i, pairs) {
        tenor_u32x4 c;
        c.x = 0u; c.y = 0u; c.z = (u32)i; c.w = (u32)(i >> 32);
        const tenor_u32x4 x = tenor_philox4x32_10(c, k0, k1);
        const double r = sqrt(-2.0 * log(tenor_uniform_f64(x.x, x.y)));
        // cos(2 pi u) as cospi(2 u): exact argument scaling, no general range reduction.
        const double z = r * cospi(2.0 * tenor_uniform_f64(x.z, x.w));
        // exp(drift -/+ v z) = exp(drift) exp(-/+ v z): one exponential and a reciprocal.
        const double e = exp(vol_sqrt_t * z);
        const double up = spot_fwd * e;
        const double dn = spot_fwd / e;
        const double y = half_discount * (fmax(w * (up - strike), 0.0) + fmax(w * (dn - strike), 0.0));
        v[0] += y;
        v[1] += y * y;
    }
    tenor_block_sum<2>(v);
    if (threadIdx.x == 0) {
        partials[2 * (u64)blockIdx.x] = v[0];
        partials[2 * (u64)blockIdx.x + 1] = v[1];
    }
}
