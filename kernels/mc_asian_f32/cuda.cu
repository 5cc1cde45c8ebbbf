// Fused antithetic Monte Carlo fixed-strike Asian in fp32 path arithmetic, fp64 block sums (see
// kernel.toml): the shared code's tenor_mc_asian_f32 (one Philox call gives four normals, a
// quad of steps, for both paths of the pair; the path state stays in registers).
extern "C" __global__ void __launch_bounds__(TENOR_THREADS) mc_asian_f32(double* __restrict__ partials, u64 seed,
                                                                          u64 pairs, u32 steps, float spot,
                                                                          float strike, u32 is_call, u32 spot_fixing,
                                                                          float drift_first, float vol_first,
                                                                          float drift_dt, float vol_sqrt_dt,
                                                                          float discount) {
    tenor_mc_asian_f32(partials, seed, pairs, steps, spot, strike, is_call, spot_fixing, drift_first, vol_first,
                          drift_dt, vol_sqrt_dt, discount);
}
