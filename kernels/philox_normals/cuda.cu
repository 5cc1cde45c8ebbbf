// out[s * paths + p] = normal_f64(seed, path_offset + p, s), s < steps; one thread per path.
extern "C" __global__ void philox_normals(double* __restrict__ out, u64 seed, u64 path_offset, u64 paths, u32 steps) {
    const u64 p = (u64)blockIdx.x * TENOR_BLOCK + threadIdx.x;
    if (p >= paths) return;
    for (u32 s = 0; s < steps; s += 2) {
        double z0, z1;
        tenor_normal_pair_f64(seed, path_offset + p, s >> 1, &z0, &z1);
        out[(u64)s * paths + p] = z0;
        if (s + 1 < steps) out[(u64)(s + 1) * paths + p] = z1;
    }
}
