// Fused antithetic Monte Carlo fixed-strike Asian (arithmetic and geometric), fp64 (see
// kernel.toml): the shared code's tenor_mc_asian_f64. partials[5b .. 5b + 5] = block sums of
// a, a^2, g, g^2, a g.
extern "C" __global__ void __launch_bounds__(TENOR_THREADS) mc_asian(double* __restrict__ partials, u64 seed,
                                                                      u64 pairs, u32 steps, double spot,
                                                                      double strike, u32 is_call, u32 spot_fixing,
                                                                      double drift_first, double vol_first,
                                                                      double drift_dt, double vol_sqrt_dt,
                                                                      double discount) {
    tenor_mc_asian_f64(partials, seed, pairs, steps, spot, strike, is_call, spot_fixing, drift_first, vol_first,
                           drift_dt, vol_sqrt_dt, discount);
}
