// Tenor CUDA prelude: prepended by the CUDA adapter to every kernels/<name>/cuda.cu before
// NVRTC compiles it (after two defines: TENOR_BLOCK, work items per block from the manifest,
// and TENOR_THREADS, CUDA threads per block).
//
// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3",
// SC'11) and Tenor's (seed, path, step) -> normal mapping, exactly as kernels/src/philox.rs:
// the raw words are bitwise identical to the CPU reference; fp64 normals use CUDA's log, sqrt
// and sincos (within an ulp or two of the CPU's), fp32 normals the fast intrinsics noted below.

typedef unsigned int u32;
typedef unsigned long long u64;

// The spellings kernels/common/shared.h (device code written once for CUDA and SYCL, appended
// to this prelude by tenor_kernels::prelude) is written in; prelude.hpp defines the SYCL ones.
typedef u32 tenor_u32;
typedef u64 tenor_u64;
#define TENOR_DEVICE_INLINE __device__ __forceinline__
#define TENOR_DEVICE __device__
#define TENOR_MATH(f) f
#define TENOR_NAN_F64() __longlong_as_double(0x7FF8000000000000ll)
#define TENOR_INF_F64() __longlong_as_double(0x7FF0000000000000ll)
#define TENOR_SINCOS(x, s, c) sincos((x), (s), (c))
#define TENOR_MUL_ADD(a, b, c) fma((a), (b), (c))
// Kernel arguments need no address space, and the block sums no scratch argument (OpenCL C
// needs both: prelude.cl).
#define TENOR_GLOBAL
#define TENOR_SCRATCH_PARAM
#define TENOR_SCRATCH_ARG
// 1: warp-synchronous shuffles (__shfl_sync) exist, and kernels/common/basket.h runs the basket's
// path kernels with one lane per asset (ADR 0035); prelude.hpp and prelude.cl say 0 (one
// work-item per path).
#define TENOR_WARP_LANES 1

#define TENOR_PHILOX_M0 0xD2511F53u
#define TENOR_PHILOX_M1 0xCD9E8D57u
#define TENOR_PHILOX_W0 0x9E3779B9u
#define TENOR_PHILOX_W1 0xBB67AE85u

struct tenor_u32x4 { u32 x, y, z, w; };

// One Philox4x32 bijection with 10 rounds of `c` under key (k0, k1).
__device__ __forceinline__ tenor_u32x4 tenor_philox4x32_10(tenor_u32x4 c, u32 k0, u32 k1) {
#pragma unroll
    for (int round = 0; round < 10; ++round) {
        if (round > 0) { k0 += TENOR_PHILOX_W0; k1 += TENOR_PHILOX_W1; }
        const u32 hi0 = __umulhi(TENOR_PHILOX_M0, c.x), lo0 = TENOR_PHILOX_M0 * c.x;
        const u32 hi1 = __umulhi(TENOR_PHILOX_M1, c.z), lo1 = TENOR_PHILOX_M1 * c.z;
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
__device__ __forceinline__ tenor_u32x4 tenor_philox_path(u64 seed, u64 path, u32 blk) {
    tenor_u32x4 c;
    c.x = blk; c.y = 0u; c.z = (u32)path; c.w = (u32)(path >> 32);
    return tenor_philox4x32_10(c, (u32)seed, (u32)(seed >> 32));
}

// 52-bit uniform in (0, 1): (k + 0.5) 2^-52, k = (hi << 20) ^ (lo >> 12). Built from the bits
// instead of an integer-to-double conversion (a slow instruction): 1 + k 2^-52 has k as its
// mantissa, subtracting 1 is exact (Sterbenz), and adding 2^-53 gives (2k + 1) 2^-53 exactly
// (2k + 1 < 2^53). Bitwise the same value as the CPU's (k as f64 + 0.5) * 2^-52.
__device__ __forceinline__ double tenor_uniform_f64(u32 hi, u32 lo) {
    const u64 k = ((u64)hi << 20) ^ ((u64)lo >> 12);
    return (__longlong_as_double((long long)(0x3FF0000000000000ull | k)) - 1.0) + 0x1p-53;
}

// 23-bit uniform in (0, 1): ((x >> 9) + 0.5) 2^-23, by the same construction in fp32:
// (1 + m 2^-23) - 1 + 2^-24 = (2m + 1) 2^-24 exactly. Bitwise the CPU's value.
__device__ __forceinline__ float tenor_uniform_f32(u32 x) {
    return (__uint_as_float(0x3F800000u | (x >> 9)) - 1.0f) + 0x1p-24f;
}

// The fp64 normals of steps 2 pair and 2 pair + 1 of `path` (Box and Muller 1958):
// r cos(2 pi u2), r sin(2 pi u2), r = sqrt(-2 ln u1).
__device__ __forceinline__ void tenor_normal_pair_f64(u64 seed, u64 path, u32 pair, double* z0, double* z1) {
    const tenor_u32x4 x = tenor_philox_path(seed, path, pair);
    const double u1 = tenor_uniform_f64(x.x, x.y);
    const double u2 = tenor_uniform_f64(x.z, x.w);
    const double r = sqrt(-2.0 * log(u1));
    double s, c;
    sincos((2.0 * 3.141592653589793) * u2, &s, &c);
    *z0 = r * c;
    *z1 = r * s;
}

// The fp64 normal of (seed, path, step).
__device__ __forceinline__ double tenor_normal_f64(u64 seed, u64 path, u32 step) {
    double a, b;
    tenor_normal_pair_f64(seed, path, step >> 1, &a, &b);
    return (step & 1u) ? b : a;
}

// Box-Muller in fp32 on words (a, b). The angle is taken as 2 pi (u - 1/2), exact in fp32 and
// inside [-pi, pi] where __sincosf's absolute error is 2^-21.41 (CUDA Math API, intrinsics),
// and the signs are flipped back: cos(t - pi) = -cos t, sin(t - pi) = -sin t. __logf has an
// absolute error of 2^-21.41 on [0.5, 2] and a few ulp elsewhere.
__device__ __forceinline__ void tenor_box_muller_f32(u32 a, u32 b, float* z0, float* z1) {
    const float r = sqrtf(-2.0f * __logf(tenor_uniform_f32(a)));
    float s, c;
    __sincosf(6.2831855f * (tenor_uniform_f32(b) - 0.5f), &s, &c);
    *z0 = -r * c;
    *z1 = -r * s;
}

// Only the first (cosine) normal of words (a, b), as tenor_box_muller_f32's z0, with the
// radius as l rsqrt(l) (MUFU.RSQ and one multiply, a few ulp) instead of an IEEE sqrtf.
__device__ __forceinline__ float tenor_box_muller_cos_f32(u32 a, u32 b) {
    const float l = -2.0f * __logf(tenor_uniform_f32(a));
    return -(l * rsqrtf(l)) * __cosf(6.2831855f * (tenor_uniform_f32(b) - 0.5f));
}

// The four fp32 normals of steps 4 quad .. 4 quad + 3 of `path`: words (0, 1) give steps
// 4 quad, 4 quad + 1 (cos, sin), words (2, 3) steps 4 quad + 2, 4 quad + 3.
__device__ __forceinline__ void tenor_normal_quad_f32(u64 seed, u64 path, u32 quad, float z[4]) {
    const tenor_u32x4 x = tenor_philox_path(seed, path, quad);
    tenor_box_muller_f32(x.x, x.y, &z[0], &z[1]);
    tenor_box_muller_f32(x.z, x.w, &z[2], &z[3]);
}

// The fp32 normal of (seed, path, step) (steps 4q and 4q + 1 need only words 0 and 1).
__device__ __forceinline__ float tenor_normal_f32(u64 seed, u64 path, u32 step) {
    const tenor_u32x4 x = tenor_philox_path(seed, path, step >> 2);
    float a, b;
    if (step & 2u) tenor_box_muller_f32(x.z, x.w, &a, &b); else tenor_box_muller_f32(x.x, x.y, &a, &b);
    return (step & 1u) ? b : a;
}

// Block-wide sums of N fp64 values per thread, by warp shuffles then shared memory.
// Every thread of the block must call it; thread 0 receives the totals in v.
template <int N>
__device__ __forceinline__ void tenor_block_sum(double v[N]) {
    __shared__ double tenor_scratch[N][(TENOR_THREADS + 31u) / 32u];
#pragma unroll
    for (int j = 0; j < N; ++j) {
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) v[j] += __shfl_down_sync(0xffffffffu, v[j], off);
    }
    const u32 lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (lane == 0) {
#pragma unroll
        for (int j = 0; j < N; ++j) tenor_scratch[j][warp] = v[j];
    }
    __syncthreads();
    if (threadIdx.x == 0) {
#pragma unroll
        for (int j = 0; j < N; ++j) {
            double t = 0.0;
            for (u32 w = 0; w < (TENOR_THREADS + 31u) / 32u; ++w) t += tenor_scratch[j][w];
            v[j] = t;
        }
    }
}

// Items of the calling block and thread: item = blockIdx.x * TENOR_BLOCK + threadIdx.x + k TENOR_THREADS.
#define TENOR_FOR_ITEMS(item, n)                                                                  \
    for (u64 item = (u64)blockIdx.x * TENOR_BLOCK + threadIdx.x,                                  \
             tenor_end_ = min((u64)(n), (u64)blockIdx.x * TENOR_BLOCK + TENOR_BLOCK);             \
         item < tenor_end_; item += TENOR_THREADS)

// This block's index in the launch, 64-bit.
#define TENOR_BLOCK_INDEX() ((u64)blockIdx.x)

// The same items of block `blk` of a launch's own numbering (blk = blockIdx.x for a kernel of
// one product; block blockIdx.x mod B of its product for the batch kernels).
#define TENOR_FOR_ITEMS_IN(item, n, blk)                                                          \
    for (u64 item = (u64)(blk) * TENOR_BLOCK + threadIdx.x,                                       \
             tenor_end_ = min((u64)(n), (u64)(blk) * TENOR_BLOCK + TENOR_BLOCK);                  \
         item < tenor_end_; item += TENOR_THREADS)

// The item of the calling thread in a kernel of one thread per item (manifest block <= 256, so
// TENOR_THREADS == TENOR_BLOCK): the statement after it runs for that item if it is below n.
#define TENOR_FOR_ITEM_PER_THREAD(item, n)                                                        \
    if (const u64 item = (u64)blockIdx.x * TENOR_BLOCK + threadIdx.x; item < (u64)(n))

// Block-wide sums of v[0 .. N) (every thread calls it), written by thread 0 to out[N b + j] of
// this block b.
#define TENOR_BLOCK_SUMS(v, N, out)                                                               \
    tenor_block_sum<N>(v);                                                                        \
    if (threadIdx.x == 0) {                                                                       \
        _Pragma("unroll") for (int j = 0; j < N; ++j)(out)[N * (u64)blockIdx.x + j] = (v)[j];     \
    }

// The same sums written to out[N blk + j] (blk as in TENOR_FOR_ITEMS_IN).
#define TENOR_BLOCK_SUMS_IN(v, N, out, blk)                                                       \
    tenor_block_sum<N>(v);                                                                        \
    if (threadIdx.x == 0) {                                                                       \
        _Pragma("unroll") for (int j = 0; j < N; ++j)(out)[N * (u64)(blk) + j] = (v)[j];          \
    }

// Work-group sums of v[0 .. N) (every thread calls it), left in thread 0's v (the others' v
// are partial sums, or unchanged). For a few values (N <= 8) in fewer instructions than tenor_block_sum's N x 5
// shuffles per warp: every thread stores its N values as a column of shared memory, warp j adds
// column j (each lane 8 of them, then 5 shuffles), thread 0 receives the totals. Bigger N: the
// warp-shuffle sum. Every thread of the block must call it.
template <int N>
__device__ __forceinline__ void tenor_group_sum(double v[N]) {
    constexpr u32 warps = (TENOR_THREADS + 31u) / 32u;
    if constexpr (N <= 8 && N <= (int)warps && TENOR_THREADS % 32u == 0u) {
        __shared__ double tenor_cols[N][TENOR_THREADS];
        __shared__ double tenor_totals[N];
#pragma unroll
        for (int j = 0; j < N; ++j) tenor_cols[j][threadIdx.x] = v[j];
        __syncthreads();
        const u32 lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
        if (warp < (u32)N) {
            double t = 0.0;
            for (u32 i = lane; i < TENOR_THREADS; i += 32u) t += tenor_cols[warp][i];
#pragma unroll
            for (int off = 16; off > 0; off >>= 1) t += __shfl_down_sync(0xffffffffu, t, off);
            if (lane == 0) tenor_totals[warp] = t;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
#pragma unroll
            for (int j = 0; j < N; ++j) v[j] = tenor_totals[j];
        }
    } else {
        tenor_block_sum<N>(v);
    }
}
#define TENOR_GROUP_SUMS(v, N) tenor_group_sum<N>(v)

// Work-item 0's v[0 .. N) to every work-item of the group (every thread calls it).
template <int N>
__device__ __forceinline__ void tenor_group_broadcast(double v[N]) {
    __shared__ double tenor_shared[N];
    __syncthreads();  // an earlier broadcast's readers are done
    if (threadIdx.x == 0) {
#pragma unroll
        for (int j = 0; j < N; ++j) tenor_shared[j] = v[j];
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < N; ++j) v[j] = tenor_shared[j];
}
#define TENOR_GROUP_BROADCAST(v, N) tenor_group_broadcast<N>(v)

// A hint to bring the global memory line holding *p into the SM's L1 (PTX prefetch.global.L1):
// a later read of it on a critical path then waits for L1, not L2.
#define TENOR_PREFETCH(p) asm volatile("prefetch.global.L1 [%0];" ::"l"(p))


// A barrier of the whole grid of a cooperative launch (every block resident:
// Compute::launch_cooperative): thread 0 of each block adds 1 to the counter with release
// semantics (its writes before the barrier, and those the block's barrier ordered before them,
// are visible to whoever acquires the counter after) and polls it with acquire loads until it
// reaches `target` (nblocks times the number of waits so far; the counter is 0 before the
// launch); then the block's threads go on together. The release/acquire form of CUB's
// GridBarrier (__threadfence, atomicAdd, volatile poll): 1.21 against 1.49 us per barrier of 98
// blocks on an H100 (benches/basket/grid_barrier.cu).
__device__ __forceinline__ void tenor_grid_sync(u32* counter, u32 target) {
    __syncthreads();
    if (threadIdx.x == 0) {
#if __CUDA_ARCH__ >= 700
        asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(counter), "r"(1u) : "memory");
        u32 seen;
        do {
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(counter) : "memory");
        } while (seen < target);
#else
        // Before Volta (no release/acquire operations): CUB's form.
        __threadfence();
        atomicAdd(counter, 1u);
        while (*(volatile u32*)counter < target) {
        }
        __threadfence();
#endif
    }
    __syncthreads();
}
#define TENOR_GRID_SYNC(counter, target) tenor_grid_sync((counter), (target))
#define TENOR_HAS_GRID_SYNC 1

// Fused antithetic Monte Carlo European, fp64 (mc_european and mc_european_batch). Work item p
// is antithetic pair p; pairs 2j and 2j + 1 share Philox call j (cosine and sine outputs of one
// Box-Muller transform), so each thread takes the calls j of its block (TENOR_BLOCK / 2 per
// block) with a stride of TENOR_THREADS, sums its pairs in registers, then the block reduces
// with warp shuffles.
template <bool CALL>
__device__ __forceinline__ double tenor_mc_european_pair(double spot_fwd, double strike, double e) {
    const double up = spot_fwd * e;
    const double dn = spot_fwd * __drcp_rn(e);
    return CALL ? fmax(up - strike, 0.0) + fmax(dn - strike, 0.0) : fmax(strike - up, 0.0) + fmax(strike - dn, 0.0);
}

template <bool CALL>
__device__ __forceinline__ void tenor_mc_european_sums(double v[2], u64 seed, u64 first, u32 n, double spot_fwd,
                                                       double strike, double vol_sqrt_t) {
    const u32 k0 = (u32)seed, k1 = (u32)(seed >> 32);
    const u64 j0 = first >> 1;
#pragma unroll 2
    for (u32 q = 2u * threadIdx.x; q < n; q += 2u * TENOR_THREADS) {
        const u64 j = j0 + (q >> 1);
        tenor_u32x4 c;
        c.x = 0u; c.y = 0u; c.z = (u32)j; c.w = (u32)(j >> 32);
        const tenor_u32x4 x = tenor_philox4x32_10(c, k0, k1);
        // vol sqrt(T) times the Box-Muller radius, once for both normals.
        const double vr = vol_sqrt_t * sqrt(-2.0 * log(tenor_uniform_f64(x.x, x.y)));
        // sin and cos of 2 pi u as sincospi(2 u): one call, exact argument scaling.
        double s, co;
        sincospi(2.0 * tenor_uniform_f64(x.z, x.w), &s, &co);
        const double y0 = tenor_mc_european_pair<CALL>(spot_fwd, strike, exp(vr * co));
        v[0] += y0;
        v[1] += y0 * y0;
        if (q + 1u < n) {
            const double y1 = tenor_mc_european_pair<CALL>(spot_fwd, strike, exp(vr * s));
            v[0] += y1;
            v[1] += y1 * y1;
        }
    }
}

// One block of mc_european (see its kernel.toml): pairs c TENOR_BLOCK .. min(pairs, (c + 1)
// TENOR_BLOCK) of one product, summed by the CUDA block's threads, written by thread 0 to
// out[0] (sum of Y) and out[1] (sum of Y^2). Shared by mc_european (block c = blockIdx.x) and
// mc_european_batch (one product's block), so both give bitwise the same partials. Tuned for
// the fp64 pipe (measured on the H200, docs/results): the option type is a template parameter
// (no multiply by +/-1), the discount is applied once per block (sums of undiscounted pair
// payoffs, scaled at the end), exp(-x) as a reciprocal of exp(x), loop counters in 32 bits
// inside the block. Results differ from the CPU reference by a few ulp per path (sincospi,
// exp(drift) exp(vz), the reciprocal, the late discount).
__device__ __forceinline__ void tenor_mc_european_block(double* __restrict__ out, u64 c, u64 seed, u64 pairs,
                                                        double spot, double strike, u32 is_call, double drift,
                                                        double vol_sqrt_t, double discount) {
    const double spot_fwd = spot * exp(drift);
    const u64 first = c * TENOR_BLOCK;
    const u32 n = (u32)(min(pairs, first + TENOR_BLOCK) - first);
    double v[2] = {0.0, 0.0};
    if (is_call != 0u) {
        tenor_mc_european_sums<true>(v, seed, first, n, spot_fwd, strike, vol_sqrt_t);
    } else {
        tenor_mc_european_sums<false>(v, seed, first, n, spot_fwd, strike, vol_sqrt_t);
    }
    tenor_block_sum<2>(v);
    if (threadIdx.x == 0) {
        // Y = discount / 2 * (pair payoff): scale the sums once.
        const double h = 0.5 * discount;
        out[0] = h * v[0];
        out[1] = h * h * v[1];
    }
}
