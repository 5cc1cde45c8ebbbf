// Fused antithetic Monte Carlo fixed-strike Asian (arithmetic and geometric), fp64 (see
// kernel.toml). partials[5b .. 5b + 5] = block sums of a, a^2, g, g^2, a g.
struct tenor_asian_pair { double xu, xd, su, sd, lu, ld; };

__device__ __forceinline__ void tenor_asian_step(tenor_asian_pair& p, double d, double vz) {
    p.xu += d + vz;
    p.xd += d - vz;
    p.lu += p.xu;
    p.ld += p.xd;
    p.su += exp(p.xu);
    p.sd += exp(p.xd);
}

extern "C" __global__ void __launch_bounds__(TENOR_THREADS) mc_asian(double* __restrict__ partials, u64 seed,
                                                                      u64 pairs, u32 steps, double spot,
                                                                      double strike, u32 is_call, u32 spot_fixing,
                                                                      double drift_first, double vol_first,
                                                                      double drift_dt, double vol_sqrt_dt,
                                                                      double discount) {
    const double w = is_call != 0u ? 1.0 : -1.0;
    const double x0 = log(spot);
    const double inv_n = 1.0 / (double)(steps + (spot_fixing != 0u ? 1u : 0u));
    const double s0 = spot_fixing != 0u ? spot : 0.0, l0 = spot_fixing != 0u ? x0 : 0.0;
    const double half_discount = 0.5 * discount;
    double v[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
    TENOR_FOR_ITEMS(i, pairs) {
        tenor_asian_pair p = {x0, x0, s0, s0, l0, l0};
        for (u32 k = 0; k < steps; k += 2) {
            double z0, z1;
            tenor_normal_pair_f64(seed, i, k >> 1, &z0, &z1);
            if (k == 0) tenor_asian_step(p, drift_first, vol_first * z0);
            else tenor_asian_step(p, drift_dt, vol_sqrt_dt * z0);
            if (k + 1 < steps) tenor_asian_step(p, drift_dt, vol_sqrt_dt * z1);
        }
        const double a = half_discount * (fmax(w * (p.su * inv_n - strike), 0.0) + fmax(w * (p.sd * inv_n - strike), 0.0));
        const double g = half_discount * (fmax(w * (exp(p.lu * inv_n) - strike), 0.0) +
                                          fmax(w * (exp(p.ld * inv_n) - strike), 0.0));
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
