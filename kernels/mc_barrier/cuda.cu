// Fused antithetic Monte Carlo barrier option, fp64 (see kernel.toml): the shared code's
// tenor_mc_barrier. partials[2b], partials[2b + 1] = block sums of Y and Y^2.
extern "C" __global__ void __launch_bounds__(TENOR_THREADS) mc_barrier(double* __restrict__ partials, u64 seed,
                                                                        u64 pairs, u32 steps, double spot,
                                                                        double strike, double barrier, double rebate,
                                                                        u32 is_call, u32 kind, u32 continuous,
                                                                        double drift_dt, double vol_sqrt_dt,
                                                                        double rate_dt, double discount) {
    tenor_mc_barrier(partials, seed, pairs, steps, spot, strike, barrier, rebate, is_call, kind, continuous, drift_dt,
                     vol_sqrt_dt, rate_dt, discount);
}
