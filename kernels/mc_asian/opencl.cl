// mc_asian (see kernel.toml): fused antithetic Asian Monte Carlo, fp64, the shared code's
// tenor_mc_asian_f64 (kernels/common/asian.h).
__kernel void mc_asian(__global double* restrict partials, ulong seed, ulong pairs, uint steps, double spot,
                       double strike, uint is_call, uint spot_fixing, double drift_first, double vol_first,
                       double drift_dt, double vol_sqrt_dt, double discount) {
    TENOR_KERNEL_SCRATCH;
    tenor_mc_asian_f64(partials, seed, pairs, steps, spot, strike, is_call, spot_fixing, drift_first, vol_first,
                       drift_dt, vol_sqrt_dt, discount TENOR_SCRATCH_ARG);
}
