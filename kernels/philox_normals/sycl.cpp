// philox_normals (see kernel.toml): out[s * paths + p] = normal_f64(seed, path_offset + p, s), the
// shared code's tenor_philox_normals.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void philox_normals(double *out, uint64_t seed, uint64_t path_offset, uint64_t paths, uint32_t steps) {
    tenor_philox_normals(out, seed, path_offset, paths, steps);
}
