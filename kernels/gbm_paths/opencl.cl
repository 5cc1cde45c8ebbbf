// gbm_paths (see kernel.toml): the shared code's tenor_gbm_paths.
__kernel void gbm_paths(__global double* restrict out, ulong seed, ulong paths, uint steps, double spot,
                        double drift_first, double vol_first, double drift_dt, double vol_sqrt_dt) {
    tenor_gbm_paths(out, seed, paths, steps, spot, drift_first, vol_first, drift_dt, vol_sqrt_dt);
}
