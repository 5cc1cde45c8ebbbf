// Fused antithetic Monte Carlo barrier option, fp64 (see kernel.toml and the prelude's
// tenor_barrier_*). partials[2b], partials[2b + 1] = block sums of Y and Y^2.
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
        tenor_barrier_path up = tenor_barrier_start(x0), dn = tenor_barrier_start(x0);
        double xu = x0, xd = x0;
        for (u32 k = 0; k < steps; k += 2) {
            double z0, z1;
            tenor_normal_pair_f64(seed, i, k >> 1, &z0, &z1);
            xu += drift_dt + vol_sqrt_dt * z0;
            xd += drift_dt - vol_sqrt_dt * z0;
            tenor_barrier_step(prm, up, k, xu);
            tenor_barrier_step(prm, dn, k, xd);
            if (k + 1 < steps) {
                xu += drift_dt + vol_sqrt_dt * z1;
                xd += drift_dt - vol_sqrt_dt * z1;
                tenor_barrier_step(prm, up, k + 1, xu);
                tenor_barrier_step(prm, dn, k + 1, xd);
            }
        }
        const double y = 0.5 * (tenor_barrier_value(prm, up) + tenor_barrier_value(prm, dn));
        v[0] += y;
        v[1] += y * y;
    }
    tenor_block_sum<2>(v);
    if (threadIdx.x == 0) {
        partials[2 * (u64)blockIdx.x] = v[0];
        partials[2 * (u64)blockIdx.x + 1] = v[1];
    }
}
