// lsm_paths_batch (see kernel.toml): lsm_paths for many products in one launch, the shared
// code's tenor_lsm_paths_batch.
__kernel void lsm_paths_batch(__global double* restrict out, __global const double* restrict spot,
                              __global const double* restrict drift_dt, __global const double* restrict vol_sqrt_dt,
                              uint products, ulong seed, ulong paths, uint steps, ulong items) {
    tenor_lsm_paths_batch(out, spot, drift_dt, vol_sqrt_dt, products, seed, paths, steps, items);
}
