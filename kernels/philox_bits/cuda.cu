// out[4i .. 4i + 4] = Philox4x32-10(counter = (i mod 2^32, i / 2^32, 0, 0), key = seed).
extern "C" __global__ void philox_bits(u32* __restrict__ out, u64 seed, u64 n) {
    const u64 i = (u64)blockIdx.x * TENOR_BLOCK + threadIdx.x;
    if (i >= n) return;
    tenor_u32x4 c;
    c.x = (u32)i; c.y = (u32)(i >> 32); c.z = 0u; c.w = 0u;
    const tenor_u32x4 r = tenor_philox4x32_10(c, (u32)seed, (u32)(seed >> 32));
    reinterpret_cast<uint4*>(out)[i] = make_uint4(r.x, r.y, r.z, r.w);
}
