// Tenor's OpenCL C prelude: prepended by the OpenCL adapter to every kernels/<name>/opencl.cl
// (after two defines: TENOR_BLOCK, work items per launch block from the manifest, and
// TENOR_LOCAL, work-items per work-group) before clBuildProgram; kernels/common/shared.h (device
// code written once for CUDA, SYCL and OpenCL) follows it. OpenCL C 1.2 with cl_khr_fp64, so
// the same source builds on NVIDIA's OpenCL, PoCL and Intel's OpenCL CPU runtime.
//
// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, SC'11) and Tenor's (seed, path, step) to
// uniform and normal mapping, written exactly as kernels/src/philox.rs: the 32-bit words agree
// bitwise with the CPU reference, the fp64 normals to the last ulps of log, sqrt, sin and cos.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// No contraction of a b + c into one rounding unless asked for (build option
// -DTENOR_FP_CONTRACT): OpenCL C contracts by default, and Intel's OpenCL CPU compiler then
// moved curve_build 2.8e-12 from the CPU reference (the conformance tolerance is 1e-12).
#ifdef TENOR_FP_CONTRACT
#pragma OPENCL FP_CONTRACT ON
#else
#pragma OPENCL FP_CONTRACT OFF
#endif

#ifndef TENOR_BLOCK
#define TENOR_BLOCK 256u
#endif
#ifndef TENOR_LOCAL
#define TENOR_LOCAL 256u
#endif

// The spellings kernels/common/shared.h is written in (prelude.cuh and prelude.hpp define the
// CUDA and SYCL ones).
typedef uint tenor_u32;
typedef ulong tenor_u64;
#define TENOR_DEVICE_INLINE static inline
#define TENOR_DEVICE static
#define TENOR_MATH(f) f
#define TENOR_NAN_F64() as_double(0x7FF8000000000000UL)
#define TENOR_INF_F64() as_double(0x7FF0000000000000UL)
#define TENOR_SINCOS(x, s, c) (*(s) = sincos((x), (c)))
// a b + c as the product, then the sum (SYCL's spelling; no -cl-mad-enable, so the compiler
// rounds the product unless it contracts on its own, as OpenCL C allows by default).
#define TENOR_MUL_ADD(a, b, c) ((a) * (b) + (c))
// Address spaces: pointers to kernel arguments are __global; OpenCL C 1.2 has no generic
// address space, so shared.h marks them (empty for CUDA and SYCL).
#define TENOR_GLOBAL __global
#define __restrict__ restrict
// The work-group scratch that TENOR_BLOCK_SUMS uses: OpenCL C 1.2 allows __local variables
// only at kernel scope, so a kernel declares it (TENOR_KERNEL_SCRATCH) and passes it on to the
// shared functions that sum over the block (TENOR_SCRATCH_PARAM / TENOR_SCRATCH_ARG, empty for
// CUDA and SYCL).
#define TENOR_KERNEL_SCRATCH __local double tenor_scratch[TENOR_LOCAL]
#define TENOR_SCRATCH_PARAM , __local double* tenor_scratch
#define TENOR_SCRATCH_ARG , tenor_scratch
// 0: kernels/common/basket.h runs the basket's path kernels with one work-item per path (CUDA
// runs one lane per asset: prelude.cuh, ADR 0035).
#define TENOR_WARP_LANES 0

// The fp32 normals' and mc_european_f32's log, sin, cos, exp and division: OpenCL C's accurate
// functions (within 4 ulp), or with -DTENOR_NATIVE_F32 the native_ ones (implementation-defined
// accuracy; what CUDA's __logf, __sincosf, __expf and __fdividef are on NVIDIA), for
// measurements against CUDA's fast intrinsics.
#ifdef TENOR_NATIVE_F32
#define TENOR_F32_LOG(x) native_log(x)
#define TENOR_F32_SIN(x) native_sin(x)
#define TENOR_F32_COS(x) native_cos(x)
#define TENOR_F32_EXP(x) native_exp(x)
#define TENOR_F32_DIV(a, b) native_divide((a), (b))
#else
#define TENOR_F32_LOG(x) log(x)
#define TENOR_F32_SIN(x) sin(x)
#define TENOR_F32_COS(x) cos(x)
#define TENOR_F32_EXP(x) exp(x)
#define TENOR_F32_DIV(a, b) ((a) / (b))
#endif

#define TENOR_PHILOX_M0 0xD2511F53u
#define TENOR_PHILOX_M1 0xCD9E8D57u
#define TENOR_PHILOX_W0 0x9E3779B9u
#define TENOR_PHILOX_W1 0xBB67AE85u

typedef struct tenor_u32x4 { uint x, y, z, w; } tenor_u32x4;

// One Philox4x32 bijection with 10 rounds of `c` under key (k0, k1).
static inline tenor_u32x4 tenor_philox4x32_10(tenor_u32x4 c, uint k0, uint k1) {
#pragma unroll
    for (int round = 0; round < 10; ++round) {
        if (round > 0) { k0 += TENOR_PHILOX_W0; k1 += TENOR_PHILOX_W1; }
        const uint hi0 = mul_hi(TENOR_PHILOX_M0, c.x), lo0 = TENOR_PHILOX_M0 * c.x;
        const uint hi1 = mul_hi(TENOR_PHILOX_M1, c.z), lo1 = TENOR_PHILOX_M1 * c.z;
        tenor_u32x4 n;
        n.x = hi1 ^ c.y ^ k0;
        n.y = lo1;
        n.z = hi0 ^ c.w ^ k1;
        n.w = lo0;
        c = n;
    }
    return c;
}

// Counter of block `blk` (step/2 in fp64, step/4 in fp32) of `path`; key = (seed lo, seed hi).
static inline tenor_u32x4 tenor_philox_path(ulong seed, ulong path, uint blk) {
    tenor_u32x4 c;
    c.x = blk; c.y = 0u; c.z = (uint)path; c.w = (uint)(path >> 32);
    return tenor_philox4x32_10(c, (uint)seed, (uint)(seed >> 32));
}

// 52-bit uniform in (0, 1): (k + 0.5) 2^-52, k = (hi << 20) ^ (lo >> 12), from the bits as in
// prelude.cuh: 1 + k 2^-52 has k as its mantissa, subtracting 1 is exact, adding 2^-53 gives
// (2k + 1) 2^-53 exactly. Bitwise the CPU's (k as f64 + 0.5) * 2^-52.
static inline double tenor_uniform_f64(uint hi, uint lo) {
    const ulong k = ((ulong)hi << 20) ^ ((ulong)lo >> 12);
    return (as_double(0x3FF0000000000000UL | k) - 1.0) + 0x1p-53;
}

// 23-bit uniform in (0, 1): ((x >> 9) + 0.5) 2^-23, by the same construction in fp32.
static inline float tenor_uniform_f32(uint x) {
    return (as_float(0x3F800000u | (x >> 9)) - 1.0f) + 0x1p-24f;
}

// The fp64 normals of steps 2 pair and 2 pair + 1 of `path` (Box and Muller 1958):
// r cos(2 pi u2), r sin(2 pi u2), r = sqrt(-2 ln u1).
static inline void tenor_normal_pair_f64(ulong seed, ulong path, uint pair, double* z0, double* z1) {
    const tenor_u32x4 x = tenor_philox_path(seed, path, pair);
    const double u1 = tenor_uniform_f64(x.x, x.y);
    const double u2 = tenor_uniform_f64(x.z, x.w);
    const double r = sqrt(-2.0 * log(u1));
    double c;
    const double s = sincos((2.0 * 3.141592653589793) * u2, &c);
    *z0 = r * c;
    *z1 = r * s;
}

// The fp64 normal of (seed, path, step).
static inline double tenor_normal_f64(ulong seed, ulong path, uint step) {
    double a, b;
    tenor_normal_pair_f64(seed, path, step >> 1, &a, &b);
    return (step & 1u) ? b : a;
}

// Box-Muller in fp32 on words (a, b), with the TENOR_F32_ functions above (OpenCL C's log, sin
// and cos by default, within 4 ulp; CUDA takes its fast intrinsics here).
static inline void tenor_box_muller_f32(uint a, uint b, float* z0, float* z1) {
    const float r = sqrt(-2.0f * TENOR_F32_LOG(tenor_uniform_f32(a)));
    const float t = 2.0f * 3.14159265358979323846f * tenor_uniform_f32(b);
    *z0 = r * TENOR_F32_COS(t);
    *z1 = r * TENOR_F32_SIN(t);
}

// The four fp32 normals of steps 4 quad .. 4 quad + 3 of `path`.
static inline void tenor_normal_quad_f32(ulong seed, ulong path, uint quad, float z[4]) {
    const tenor_u32x4 x = tenor_philox_path(seed, path, quad);
    tenor_box_muller_f32(x.x, x.y, &z[0], &z[1]);
    tenor_box_muller_f32(x.z, x.w, &z[2], &z[3]);
}

// The work-group sum of x, the same on every work-item: a tree over the __local scratch in
// work-item order (deterministic). Every work-item of the group must call it.
static inline double tenor_group_sum(__local double* scratch, double x) {
    const uint lid = (uint)get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);  // an earlier sum has read scratch[0]
    scratch[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint n = TENOR_LOCAL; n > 1u;) {
        const uint h = (n + 1u) >> 1;
        if (lid + h < n) scratch[lid] += scratch[lid + h];
        barrier(CLK_LOCAL_MEM_FENCE);
        n = h;
    }
    return scratch[0];
}

// The launch spellings of shared.h: the items of this work-item in block `blk` of the
// launch's own numbering (blk = the work-group for a kernel of one product; work-group mod B
// of its product for the batch kernels), strided by the work-group size.
#define TENOR_BLOCK_INDEX() ((ulong)get_group_id(0))
#define TENOR_FOR_ITEMS_IN(item, n, blk)                                                           \
    for (ulong item = (ulong)(blk) * TENOR_BLOCK + get_local_id(0),                                \
               tenor_end_ = min((ulong)(n), (ulong)(blk) * TENOR_BLOCK + TENOR_BLOCK);             \
         item < tenor_end_; item += TENOR_LOCAL)
#define TENOR_FOR_ITEMS(item, n) TENOR_FOR_ITEMS_IN(item, n, get_group_id(0))
#define TENOR_FOR_ITEM_PER_THREAD(item, n) TENOR_FOR_ITEMS(item, n)
// Work-group sums of v[0 .. N) written by work-item 0 to out[N blk + j] (needs tenor_scratch).
#define TENOR_BLOCK_SUMS_IN(v, N, out, blk)                                                        \
    for (int tenor_j_ = 0; tenor_j_ < (N); ++tenor_j_) {                                           \
        const double tenor_t_ = tenor_group_sum(tenor_scratch, (v)[tenor_j_]);                     \
        if (get_local_id(0) == 0) (out)[(N) * (ulong)(blk) + tenor_j_] = tenor_t_;                 \
    }
#define TENOR_BLOCK_SUMS(v, N, out) TENOR_BLOCK_SUMS_IN(v, N, out, get_group_id(0))
// Work-group sums of v[0 .. N) left in every work-item's v (every work-item calls it; needs
// tenor_scratch); its barriers order local memory only.
#define TENOR_GROUP_SUMS(v, N)                                                                     \
    for (int tenor_j_ = 0; tenor_j_ < (N); ++tenor_j_) (v)[tenor_j_] = tenor_group_sum(tenor_scratch, (v)[tenor_j_])
// Work-item 0's v[0 .. N) to every work-item of the group (every work-item calls it; needs
// tenor_scratch).
static inline double tenor_group_broadcast(__local double* scratch, double x) {
    barrier(CLK_LOCAL_MEM_FENCE);  // an earlier use of scratch[0] is done
    if (get_local_id(0) == 0) scratch[0] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    return scratch[0];
}
// A cache hint (prelude.cuh's prefetches into L1); none here.
#define TENOR_PREFETCH(p) ((void)(p))
#define TENOR_GROUP_BROADCAST(v, N)                                                                \
    for (int tenor_j_ = 0; tenor_j_ < (N); ++tenor_j_) (v)[tenor_j_] = tenor_group_broadcast(tenor_scratch, (v)[tenor_j_])
// No grid-wide barrier: work-groups of one launch are not guaranteed to be resident at once, so
// kernels that would wait on each other take one launch per step (basket_backward's dates = 1).
#define TENOR_HAS_GRID_SYNC 0
#define TENOR_GRID_SYNC(counter, target) ((void)(counter), (void)(target))

// Fused antithetic Monte Carlo European, fp64 (mc_european and mc_european_batch; backend
// specific, as prelude.cuh's): pairs 2j and 2j + 1 share Philox call j (cosine and sine of one
// Box-Muller transform); each work-item takes calls of its block with a stride of the
// work-group; exp(drift -/+ v z) as spot exp(drift) times exp(v z) and its IEEE reciprocal;
// sin and cos of 2 pi u by sinpi and cospi (exact argument scaling); the discount applied once
// per block.
static inline double tenor_mc_european_pair(int call, double spot_fwd, double strike, double e) {
    const double up = spot_fwd * e;
    const double dn = spot_fwd * (1.0 / e);  // the correctly rounded reciprocal, as CUDA's __drcp_rn
    return call ? fmax(up - strike, 0.0) + fmax(dn - strike, 0.0) : fmax(strike - up, 0.0) + fmax(strike - dn, 0.0);
}

static inline void tenor_mc_european_sums(int call, double v[2], ulong seed, ulong first, uint n, double spot_fwd,
                                          double strike, double vol_sqrt_t) {
    const uint k0 = (uint)seed, k1 = (uint)(seed >> 32);
    const ulong j0 = first >> 1;
    for (uint q = 2u * (uint)get_local_id(0); q < n; q += 2u * TENOR_LOCAL) {
        const ulong j = j0 + (q >> 1);
        tenor_u32x4 c;
        c.x = 0u; c.y = 0u; c.z = (uint)j; c.w = (uint)(j >> 32);
        const tenor_u32x4 x = tenor_philox4x32_10(c, k0, k1);
        const double vr = vol_sqrt_t * sqrt(-2.0 * log(tenor_uniform_f64(x.x, x.y)));
        const double u2 = 2.0 * tenor_uniform_f64(x.z, x.w);
        const double y0 = tenor_mc_european_pair(call, spot_fwd, strike, exp(vr * cospi(u2)));
        v[0] += y0;
        v[1] += y0 * y0;
        if (q + 1u < n) {
            const double y1 = tenor_mc_european_pair(call, spot_fwd, strike, exp(vr * sinpi(u2)));
            v[0] += y1;
            v[1] += y1 * y1;
        }
    }
}

// One block of mc_european (see its kernel.toml): pairs c TENOR_BLOCK .. min(pairs, (c + 1)
// TENOR_BLOCK) of one product, written by work-item 0 to out[0] (sum of Y), out[1] (sum of Y^2).
static inline void tenor_mc_european_block(__global double* out, ulong c, ulong seed, ulong pairs, double spot,
                                           double strike, uint is_call, double drift, double vol_sqrt_t,
                                           double discount, __local double* tenor_scratch) {
    const double spot_fwd = spot * exp(drift);
    const ulong first = c * TENOR_BLOCK;
    const uint n = (uint)(min(pairs, first + TENOR_BLOCK) - first);
    double v[2] = {0.0, 0.0};
    if (is_call != 0u) {
        tenor_mc_european_sums(1, v, seed, first, n, spot_fwd, strike, vol_sqrt_t);
    } else {
        tenor_mc_european_sums(0, v, seed, first, n, spot_fwd, strike, vol_sqrt_t);
    }
    const double h = 0.5 * discount;
    const double s0 = tenor_group_sum(tenor_scratch, v[0]);
    const double s1 = tenor_group_sum(tenor_scratch, v[1]);
    if (get_local_id(0) == 0) {
        out[0] = h * s0;
        out[1] = h * h * s1;
    }
}
