// Antithetic step-major GBM paths for Longstaff-Schwartz (see kernel.toml): the shared code's
// tenor_lsm_paths.
extern "C" __global__ void lsm_paths(double* __restrict__ out, u64 seed, u64 paths, u32 steps, double spot,
                                     double drift_dt, double vol_sqrt_dt) {
    tenor_lsm_paths(out, seed, paths, steps, spot, drift_dt, vol_sqrt_dt);
}
