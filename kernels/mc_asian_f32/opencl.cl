// mc_asian_f32 (see kernel.toml): fused antithetic Asian Monte Carlo, fp32 paths, fp64 sums,
// the shared code's tenor_mc_asian_f32 (kernels/common/asian.h).
__kernel void mc_asian_f32(__global double* restrict partials, ulong seed, ulong pairs, uint steps, float spot,
                           float strike, uint is_call, uint spot_fixing, float drift_first, float vol_first,
                           float drift_dt, float vol_sqrt_dt, float discount) {
    TENOR_KERNEL_SCRATCH;
    tenor_mc_asian_f32(partials, seed, pairs, steps, spot, strike, is_call, spot_fixing, drift_first, vol_first,
                       drift_dt, vol_sqrt_dt, discount TENOR_SCRATCH_ARG);
}
