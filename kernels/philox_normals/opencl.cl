// philox_normals (see kernel.toml): the shared code's tenor_philox_normals.
__kernel void philox_normals(__global double* restrict out, ulong seed, ulong path_offset, ulong paths, uint steps) {
    tenor_philox_normals(out, seed, path_offset, paths, steps);
}
