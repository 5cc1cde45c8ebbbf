// Step-major GBM paths in log space (see kernel.toml): the shared code's tenor_gbm_paths.
extern "C" __global__ void gbm_paths(double* __restrict__ out, u64 seed, u64 paths, u32 steps, double spot,
                                     double drift_first, double vol_first, double drift_dt, double vol_sqrt_dt) {
    tenor_gbm_paths(out, seed, paths, steps, spot, drift_first, vol_first, drift_dt, vol_sqrt_dt);
}
