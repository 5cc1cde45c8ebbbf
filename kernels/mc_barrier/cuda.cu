// Fused antithetic Monte Carlo barrier option, fp64 (see kernel.toml): each pair's Y from the
// shared code's TENOR_MC_BARRIER_PAIR. partials[2b], partials[2b + 1] = block sums of Y and Y^2.
extern "C" __global__ void __launch_bounds__(TENOR_THREADS) mc_barrier(double* __restrict__ partials, u64 seed,
                                                                        u64 pairs, u32 steps, double spot,
                                                                        double strike, double barrier, double rebate,
                                                                        u32 is_call, u32 kind, u32 continuous,
                                                                        double drift_dt, double vol_sqrt_dt,
                                                                        double rate_dt, double discount) {
    const tenor_barrier_params prm =
        tenor_barrier_make(strike, barrier, rebate, is_call, kind, continuous, vol_sqrt_dt, rate_dt, discount);
    const double x0 = log(spot);
    double v[2] = {0.0, 0.0};
    TENOR_FOR_ITEMS(i, pairs) {
        TENOR_MC_BARRIER_PAIR(y, prm, seed, i, steps, x0, drift_dt, vol_sqrt_dt);
        v[0] += y;
        v[1] += y * y;
    }
    tenor_block_sum<2>(v);
    if (threadIdx.x == 0) {
        partials[2 * (u64)blockIdx.x] = v[0];
        partials[2 * (u64)blockIdx.x + 1] = v[1];
    }
}
