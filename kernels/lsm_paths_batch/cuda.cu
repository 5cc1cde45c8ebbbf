// lsm_paths_batch (see kernel.toml): lsm_paths for `products` products in one launch, thread g
// writing path g mod paths of product g / paths with the shared code's tenor_lsm_path (through
// tenor_lsm_paths_batch), the per-path code of lsm_paths: bitwise the same paths.
extern "C" __global__ void lsm_paths_batch(double* __restrict__ out, const double* __restrict__ spot,
                                           const double* __restrict__ drift_dt, const double* __restrict__ vol_sqrt_dt,
                                           u32 products, u64 seed, u64 paths, u32 steps, u64 items) {
    tenor_lsm_paths_batch(out, spot, drift_dt, vol_sqrt_dt, products, seed, paths, steps, items);
}
