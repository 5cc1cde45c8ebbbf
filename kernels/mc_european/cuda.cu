// Fused antithetic Monte Carlo European, fp64 (see kernel.toml). Work item p is antithetic pair
// p; pairs 2j and 2j + 1 share Philox call j (cosine and sine outputs of one Box-Muller
// transform), so each thread takes the calls j of its block (TENOR_BLOCK / 2 per block) with a
// stride of TENOR_THREADS, sums its pairs in registers, then the block reduces with warp
// shuffles. Tuned for the fp64 pipe (measured on the H200, docs/results): the option type is a
// template parameter (no multiply by +/-1), the discount is applied once per block (sums of
// undiscounted pair payoffs, scaled at the end), exp(-x) as a reciprocal of exp(x), loop
// counters in 32 bits inside the block. Results differ from the CPU reference by a few ulp per
// path (sincospi, exp(drift) exp(vz), the reciprocal, the late discount).
static_assert(TENOR_BLOCK % 2u == 0u, "mc_european: blocks hold whole Philox calls (pairs 2j, 2j + 1)");

template <bool CALL>
__device__ __forceinline__ double tenor_mc_european_pair(double spot_fwd, double strike, double e) {
    const double up = spot_fwd * e;
    const double dn = spot_fwd * __drcp_rn(e);
    return CALL ? fmax(up - strike, 0.0) + fmax(dn - strike, 0.0) : fmax(strike - up, 0.0) + fmax(strike - dn, 0.0);
}

template <bool CALL>
__device__ __forceinline__ void tenor_mc_european_sums(double v[2], u64 seed, u64 first, u32 n, double spot_fwd,
                                                       double strike, double vol_sqrt_t) {
    const u32 k0 = (u32)seed, k1 = (u32)(seed >> 32);
    const u64 j0 = first >> 1;
#pragma unroll 2
    for (u32 q = 2u * threadIdx.x; q < n; q += 2u * TENOR_THREADS) {
        const u64 j = j0 + (q >> 1);
        tenor_u32x4 c;
        c.x = 0u; c.y = 0u; c.z = (u32)j; c.w = (u32)(j >> 32);
        const tenor_u32x4 x = tenor_philox4x32_10(c, k0, k1);
        // vol sqrt(T) times the Box-Muller radius, once for both normals.
        const double vr = vol_sqrt_t * sqrt(-2.0 * log(tenor_uniform_f64(x.x, x.y)));
        // sin and cos of 2 pi u as sincospi(2 u): one call, exact argument scaling.
        double s, co;
        sincospi(2.0 * tenor_uniform_f64(x.z, x.w), &s, &co);
        const double y0 = tenor_mc_european_pair<CALL>(spot_fwd, strike, exp(vr * co));
        v[0] += y0;
        v[1] += y0 * y0;
        if (q + 1u < n) {
            const double y1 = tenor_mc_european_pair<CALL>(spot_fwd, strike, exp(vr * s));
            v[0] += y1;
            v[1] += y1 * y1;
        }
    }
}

extern "C" __global__ void __launch_bounds__(TENOR_THREADS) mc_european(double* __restrict__ partials, u64 seed,
                                                                         u64 pairs, double spot, double strike,
                                                                         u32 is_call, double drift, double vol_sqrt_t,
                                                                         double discount) {
    const double spot_fwd = spot * exp(drift);
    const u64 first = (u64)blockIdx.x * TENOR_BLOCK;
    const u32 n = (u32)(min(pairs, first + TENOR_BLOCK) - first);
    double v[2] = {0.0, 0.0};
    if (is_call != 0u) {
        tenor_mc_european_sums<true>(v, seed, first, n, spot_fwd, strike, vol_sqrt_t);
    } else {
        tenor_mc_european_sums<false>(v, seed, first, n, spot_fwd, strike, vol_sqrt_t);
    }
    tenor_block_sum<2>(v);
    if (threadIdx.x == 0) {
        // Y = discount / 2 * (pair payoff): scale the sums once.
        const double h = 0.5 * discount;
        partials[2 * (u64)blockIdx.x] = h * v[0];
        partials[2 * (u64)blockIdx.x + 1] = h * h * v[1];
    }
}
