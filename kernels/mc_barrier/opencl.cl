// mc_barrier (see kernel.toml): fused antithetic barrier Monte Carlo, the shared code's
// tenor_mc_barrier.
__kernel void mc_barrier(__global double* restrict partials, ulong seed, ulong pairs, uint steps, double spot,
                         double strike, double barrier, double rebate, uint is_call, uint kind, uint continuous,
                         double drift_dt, double vol_sqrt_dt, double rate_dt, double discount) {
    TENOR_KERNEL_SCRATCH;
    tenor_mc_barrier(partials, seed, pairs, steps, spot, strike, barrier, rebate, is_call, kind, continuous, drift_dt,
                     vol_sqrt_dt, rate_dt, discount TENOR_SCRATCH_ARG);
}
