// out[s * paths + p] = normal_f64(seed, path_offset + p, s), s < steps: the shared code's
// tenor_philox_normals.
extern "C" __global__ void philox_normals(double* __restrict__ out, u64 seed, u64 path_offset, u64 paths, u32 steps) {
    tenor_philox_normals(out, seed, path_offset, paths, steps);
}
