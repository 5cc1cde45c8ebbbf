// lsm_paths (see kernel.toml): antithetic step-major GBM paths, the shared code's tenor_lsm_paths.
__kernel void lsm_paths(__global double* restrict out, ulong seed, ulong paths, uint steps, double spot,
                        double drift_dt, double vol_sqrt_dt) {
    tenor_lsm_paths(out, seed, paths, steps, spot, drift_dt, vol_sqrt_dt);
}
