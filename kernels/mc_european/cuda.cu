// Fused antithetic Monte Carlo European, fp64 (see kernel.toml). Work item p is antithetic pair
// p; pairs 2j and 2j + 1 share Philox call j (cosine and sine outputs of one Box-Muller
// transform), so each thread takes the calls j of its block (TENOR_BLOCK / 2 per block) with a
// stride of TENOR_THREADS, sums its pairs in registers, then the block reduces with warp
// shuffles. Results differ from the CPU reference by a few ulp per path (sincospi,
// exp(drift) exp(vz)).
static_assert(TENOR_BLOCK % 2u == 0u, "mc_european: blocks hold whole Philox calls (pairs 2j, 2j + 1)");

extern "C" __global__ void __launch_bounds__(TENOR_THREADS) mc_european(double* __restrict__ partials, u64 seed,
                                                                         u64 pairs, double spot, double strike,
                                                                         u32 is_call, double drift, double vol_sqrt_t,
                                                                         double discount) {
    const double w = is_call != 0u ? 1.0 : -1.0;
    const double half_discount = 0.5 * discount;
    const u32 k0 = (u32)seed, k1 = (u32)(seed >> 32);
    const double spot_fwd = spot * exp(drift);
    const u64 first = (u64)blockIdx.x * TENOR_BLOCK;
    const u64 end = min(pairs, first + TENOR_BLOCK);
    double v[2] = {0.0, 0.0};
#pragma unroll 2
    for (u64 p = first + 2u * (u64)threadIdx.x; p < end; p += 2u * TENOR_THREADS) {
        const u64 j = p >> 1;
        tenor_u32x4 c;
        c.x = 0u; c.y = 0u; c.z = (u32)j; c.w = (u32)(j >> 32);
        const tenor_u32x4 x = tenor_philox4x32_10(c, k0, k1);
        const double r = sqrt(-2.0 * log(tenor_uniform_f64(x.x, x.y)));
        // sin and cos of 2 pi u as sincospi(2 u): one call, exact argument scaling.
        double s, co;
        sincospi(2.0 * tenor_uniform_f64(x.z, x.w), &s, &co);
        // exp(drift -/+ v z) = exp(drift) exp(-/+ v z): one exponential and a reciprocal.
        const double e0 = exp(vol_sqrt_t * (r * co));
        const double y0 = half_discount * (fmax(w * (spot_fwd * e0 - strike), 0.0) +
                                           fmax(w * (spot_fwd / e0 - strike), 0.0));
        v[0] += y0;
        v[1] += y0 * y0;
        if (p + 1u < end) {
            const double e1 = exp(vol_sqrt_t * (r * s));
            const double y1 = half_discount * (fmax(w * (spot_fwd * e1 - strike), 0.0) +
                                               fmax(w * (spot_fwd / e1 - strike), 0.0));
            v[0] += y1;
            v[1] += y1 * y1;
        }
    }
    tenor_block_sum<2>(v);
    if (threadIdx.x == 0) {
        partials[2 * (u64)blockIdx.x] = v[0];
        partials[2 * (u64)blockIdx.x + 1] = v[1];
    }
}
