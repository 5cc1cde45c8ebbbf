// ---------------------------------------------------------------------------------------------
// mc_asian (T = double) and mc_asian_f32 (T = float), see their kernel.toml: fused antithetic
// fixed-strike Asian, arithmetic and geometric, path arithmetic in T, the five block sums of
// a, a^2, g, g^2, a g in fp64. fp64 takes the normals of steps 2m, 2m + 1 from one Philox call
// (tenor_normal_pair_f64), fp32 those of steps 4m .. 4m + 3 (tenor_normal_quad_f32), the path
// state in registers. The whole block is one function (the launch spellings TENOR_FOR_ITEMS
// and TENOR_BLOCK_SUMS come from each prelude): NVRTC then compiles it exactly as the code it
// replaces, byte for byte, which a per-item function with the step loop did not.
//
// Written once for both precisions in the common subset of CUDA C++, SYCL C++ and OpenCL C
// (which has no templates): `tenor_kernels::prelude` appends this file twice after shared.h,
// first with TENOR_T double, TENOR_ASIAN_F64 1 and TENOR_ASIAN(name) name ## _f64, then with
// float, 0 and _f32, so it defines tenor_mc_asian_block_f64, tenor_mc_asian_f64,
// tenor_mc_asian_block_f32 and tenor_mc_asian_f32 (the former template instantiations
// tenor_mc_asian_block<double> ...; scripts/cuda-bitwise-check shows the sm_90 images equal).
struct TENOR_ASIAN(tenor_asian_pair) {
    TENOR_T xu, xd, su, sd, lu, ld;
};
typedef struct TENOR_ASIAN(tenor_asian_pair) TENOR_ASIAN(tenor_asian_pair);

// One step of the fp64 path with x +/- (d +/- v z) as fused multiply-adds on CUDA,
// TENOR_MUL_ADD(v, z, d) and TENOR_MUL_ADD(-v, z, d) (prelude.cuh: fma; prelude.hpp and
// prelude.cl: the product, then the sum, as tenor_asian_step computes it). ptxas fuses v z into
// both sums in mc_asian, where v is a kernel parameter, but not always in mc_asian_batch, where
// it is loaded per product: spelling the fusion out makes both kernels compute the same
// operations (mc_asian's own sm_90 machine code keeps the same floating-point operations; only
// which operand of one fma carries the sign, -a b + c = a (-b) + c, changed).
TENOR_DEVICE_INLINE void TENOR_ASIAN(tenor_asian_step_fused)(TENOR_ASIAN(tenor_asian_pair)* p, TENOR_T d, TENOR_T v,
                                                             TENOR_T z) {
    p->xu += TENOR_MUL_ADD(v, z, d);
    p->xd += TENOR_MUL_ADD(-v, z, d);
    p->lu += p->xu;
    p->ld += p->xd;
    p->su += TENOR_MATH(exp)(p->xu);
    p->sd += TENOR_MATH(exp)(p->xd);
}

TENOR_DEVICE_INLINE void TENOR_ASIAN(tenor_asian_step)(TENOR_ASIAN(tenor_asian_pair)* p, TENOR_T d, TENOR_T vz) {
    p->xu += d + vz;
    p->xd += d - vz;
    p->lu += p->xu;
    p->ld += p->xd;
    p->su += TENOR_MATH(exp)(p->xu);
    p->sd += TENOR_MATH(exp)(p->xd);
}

// Block `blk` of the product's own numbering, sums to partials[5 blk ..] (as
// tenor_mc_barrier_block): mc_asian passes its launch's block, mc_asian_batch the block within
// the product.
TENOR_DEVICE_INLINE void TENOR_ASIAN(tenor_mc_asian_block)(TENOR_GLOBAL double* __restrict__ partials, tenor_u64 blk,
                                                           tenor_u64 seed, tenor_u64 pairs, tenor_u32 steps,
                                                           TENOR_T spot, TENOR_T strike, tenor_u32 is_call,
                                                           tenor_u32 spot_fixing, TENOR_T drift_first,
                                                           TENOR_T vol_first, TENOR_T drift_dt, TENOR_T vol_sqrt_dt,
                                                           TENOR_T discount TENOR_SCRATCH_PARAM) {
    const TENOR_T w = is_call != 0u ? (TENOR_T)1 : (TENOR_T)-1;
    const TENOR_T x0 = TENOR_MATH(log)(spot);
    const TENOR_T inv_n = (TENOR_T)1 / (TENOR_T)(steps + (spot_fixing != 0u ? 1u : 0u));
    const TENOR_T s0 = spot_fixing != 0u ? spot : (TENOR_T)0, l0 = spot_fixing != 0u ? x0 : (TENOR_T)0;
    const TENOR_T half_discount = (TENOR_T)0.5 * discount;
    double v[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
    TENOR_FOR_ITEMS_IN(i, pairs, blk) {
        TENOR_ASIAN(tenor_asian_pair) p = {x0, x0, s0, s0, l0, l0};
#if TENOR_ASIAN_F64
        for (tenor_u32 k = 0; k < steps; k += 2) {
            double z0, z1;
            tenor_normal_pair_f64(seed, i, k >> 1, &z0, &z1);
            if (k == 0) TENOR_ASIAN(tenor_asian_step_fused)(&p, drift_first, vol_first, z0);
            else TENOR_ASIAN(tenor_asian_step_fused)(&p, drift_dt, vol_sqrt_dt, z0);
            if (k + 1 < steps) TENOR_ASIAN(tenor_asian_step_fused)(&p, drift_dt, vol_sqrt_dt, z1);
        }
#else
        const tenor_u32 full = steps & ~3u;
        tenor_u32 k = 0;
        if (steps > 0u) {
            float z[4];
            tenor_normal_quad_f32(seed, i, 0u, z);
            TENOR_ASIAN(tenor_asian_step)(&p, drift_first, vol_first * z[0]);
#pragma unroll
            for (tenor_u32 j = 1; j < 4; ++j)
                if (j < steps) TENOR_ASIAN(tenor_asian_step)(&p, drift_dt, vol_sqrt_dt * z[j]);
            k = 4;
        }
        for (; k < full; k += 4) {
            float z[4];
            tenor_normal_quad_f32(seed, i, k >> 2, z);
#pragma unroll
            for (int j = 0; j < 4; ++j) TENOR_ASIAN(tenor_asian_step)(&p, drift_dt, vol_sqrt_dt * z[j]);
        }
        if (k < steps) {
            float z[4];
            tenor_normal_quad_f32(seed, i, k >> 2, z);
#pragma unroll
            for (tenor_u32 j = 0; j < 4; ++j)
                if (k + j < steps) TENOR_ASIAN(tenor_asian_step)(&p, drift_dt, vol_sqrt_dt * z[j]);
        }
#endif
        const TENOR_T af = half_discount * (TENOR_MATH(fmax)(w * (p.su * inv_n - strike), (TENOR_T)0) +
                                            TENOR_MATH(fmax)(w * (p.sd * inv_n - strike), (TENOR_T)0));
        const TENOR_T gf = half_discount * (TENOR_MATH(fmax)(w * (TENOR_MATH(exp)(p.lu * inv_n) - strike), (TENOR_T)0) +
                                            TENOR_MATH(fmax)(w * (TENOR_MATH(exp)(p.ld * inv_n) - strike), (TENOR_T)0));
        const double a = (double)af, g = (double)gf;
        v[0] += a;
        v[1] += a * a;
        v[2] += g;
        v[3] += g * g;
        v[4] += a * g;
    }
    TENOR_BLOCK_SUMS_IN(v, 5, partials, blk);
}

// mc_asian and mc_asian_f32: tenor_mc_asian_block for the launch's own block.
TENOR_DEVICE_INLINE void TENOR_ASIAN(tenor_mc_asian)(TENOR_GLOBAL double* __restrict__ partials, tenor_u64 seed,
                                                     tenor_u64 pairs, tenor_u32 steps, TENOR_T spot, TENOR_T strike,
                                                     tenor_u32 is_call, tenor_u32 spot_fixing, TENOR_T drift_first,
                                                     TENOR_T vol_first, TENOR_T drift_dt, TENOR_T vol_sqrt_dt,
                                                     TENOR_T discount TENOR_SCRATCH_PARAM) {
    TENOR_ASIAN(tenor_mc_asian_block)(partials, TENOR_BLOCK_INDEX(), seed, pairs, steps, spot, strike, is_call,
                                      spot_fixing, drift_first, vol_first, drift_dt, vol_sqrt_dt,
                                      discount TENOR_SCRATCH_ARG);
}

// mc_asian_batch: mc_asian for `products` products in one launch (fp64: the fp32 instantiation
// is unused), product i's scalars from element i of each column; each product's blocks are
// tenor_mc_asian_block's for it alone (shared.h's tenor_batch_blocks).
TENOR_DEVICE_INLINE void TENOR_ASIAN(tenor_mc_asian_batch)(
    TENOR_GLOBAL double* __restrict__ partials, TENOR_GLOBAL const tenor_u32* __restrict__ steps,
    TENOR_GLOBAL const TENOR_T* __restrict__ spot, TENOR_GLOBAL const TENOR_T* __restrict__ strike,
    TENOR_GLOBAL const tenor_u32* __restrict__ is_call, TENOR_GLOBAL const tenor_u32* __restrict__ spot_fixing,
    TENOR_GLOBAL const TENOR_T* __restrict__ drift_first, TENOR_GLOBAL const TENOR_T* __restrict__ vol_first,
    TENOR_GLOBAL const TENOR_T* __restrict__ drift_dt, TENOR_GLOBAL const TENOR_T* __restrict__ vol_sqrt_dt,
    TENOR_GLOBAL const TENOR_T* __restrict__ discount, tenor_u32 products, tenor_u64 seed, tenor_u64 pairs,
    tenor_u64 items TENOR_SCRATCH_PARAM) {
    const tenor_u64 per_product = tenor_batch_blocks(pairs), b = TENOR_BLOCK_INDEX(), i = b / per_product;
    (void)items;
    if (i >= products) return;
    TENOR_ASIAN(tenor_mc_asian_block)(partials + 5 * i * per_product, b % per_product, seed, pairs, steps[i], spot[i],
                                      strike[i], is_call[i], spot_fixing[i], drift_first[i], vol_first[i],
                                      drift_dt[i], vol_sqrt_dt[i], discount[i] TENOR_SCRATCH_ARG);
}
