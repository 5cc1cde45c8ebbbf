// philox_bits (see kernel.toml): out[4i..4i+4] = philox(counter = (i lo, i hi, 0, 0), key = seed).
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void philox_bits(uint32_t *out, uint64_t seed, uint64_t n) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, n);
    for (uint64_t i = tenor::block_first(it); i < end; i += it.get_local_range(0)) {
        tenor::u32x4 c = {{static_cast<uint32_t>(i), static_cast<uint32_t>(i >> 32), 0u, 0u}};
        tenor::u32x4 x = tenor::philox4x32_10(c, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
        for (int j = 0; j < 4; ++j) out[4 * i + j] = x.v[j];
    }
}
