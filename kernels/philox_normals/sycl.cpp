// philox_normals (see kernel.toml): out[s * paths + p] = normal_f64(seed, path_offset + p, s).
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void philox_normals(double *out, uint64_t seed, uint64_t path_offset, uint64_t paths, uint32_t steps) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, paths);
    for (uint64_t p = tenor::block_first(it); p < end; p += it.get_local_range(0)) {
        for (uint32_t s = 0; s < steps; s += 2) {
            double z0, z1;
            tenor::normal_pair_f64(seed, path_offset + p, s >> 1, z0, z1);
            out[static_cast<uint64_t>(s) * paths + p] = z0;
            if (s + 1 < steps) out[static_cast<uint64_t>(s + 1) * paths + p] = z1;
        }
    }
}
