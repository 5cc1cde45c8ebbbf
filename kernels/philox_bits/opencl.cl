// philox_bits (see kernel.toml): out[4 i + j] = word j of Philox4x32-10 of counter (i lo, i hi,
// 0, 0) under key (seed lo, seed hi); bitwise the CPU reference.
__kernel void philox_bits(__global uint* restrict out, ulong seed, ulong n) {
    TENOR_FOR_ITEMS(i, n) {
        tenor_u32x4 c;
        c.x = (uint)i; c.y = (uint)(i >> 32); c.z = 0u; c.w = 0u;
        const tenor_u32x4 r = tenor_philox4x32_10(c, (uint)seed, (uint)(seed >> 32));
        vstore4((uint4)(r.x, r.y, r.z, r.w), i, out);
    }
}
