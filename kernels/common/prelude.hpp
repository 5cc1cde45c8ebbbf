// Tenor's SYCL device prelude, prepended to every kernels/<name>/sycl.cpp before the run-time
// compilation (sycl_ext_oneapi_kernel_compiler). The SYCL adapter puts `#define TENOR_BLOCK n`
// (the manifest's launch block) in front of it.
//
// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, SC'11) and Tenor's (seed, path, step) to
// uniform and normal mapping, written exactly as kernels/src/philox.rs: the 32-bit words agree
// bitwise with the CPU reference, the normals to the last ulps of log, sqrt, sin and cos.
#include <sycl/sycl.hpp>

#include <cstdint>

namespace syclexp = sycl::ext::oneapi::experimental;

#ifndef TENOR_BLOCK
#define TENOR_BLOCK 256u
#endif

// The spellings kernels/common/shared.h (device code written once for CUDA and SYCL, appended
// to this prelude by tenor_kernels::prelude) is written in; prelude.cuh defines the CUDA ones.
typedef uint32_t tenor_u32;
typedef uint64_t tenor_u64;
#define TENOR_DEVICE_INLINE static inline
#define TENOR_DEVICE static
#define TENOR_MATH(f) sycl::f
#define TENOR_NAN_F64() sycl::bit_cast<double>(0x7FF8000000000000ull)
#define TENOR_INF_F64() sycl::bit_cast<double>(0x7FF0000000000000ull)
#define TENOR_SINCOS(x, s, c) (*(s) = sycl::sin(x), *(c) = sycl::cos(x))
// Kernel arguments need no address space, and the block sums no scratch argument (OpenCL C
// needs both: prelude.cl).
#define TENOR_GLOBAL
#define TENOR_SCRATCH_PARAM
#define TENOR_SCRATCH_ARG

namespace tenor {

struct u32x4 {
    uint32_t v[4];
};

inline void mulhilo(uint32_t a, uint32_t b, uint32_t &hi, uint32_t &lo) {
    uint64_t p = static_cast<uint64_t>(a) * static_cast<uint64_t>(b);
    hi = static_cast<uint32_t>(p >> 32);
    lo = static_cast<uint32_t>(p);
}

// One Philox4x32 bijection with 10 rounds: counter c under key (k0, k1).
inline u32x4 philox4x32_10(u32x4 c, uint32_t k0, uint32_t k1) {
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        uint32_t hi0, lo0, hi1, lo1;
        mulhilo(0xD2511F53u, c.v[0], hi0, lo0);
        mulhilo(0xCD9E8D57u, c.v[2], hi1, lo1);
        u32x4 n = {{hi1 ^ c.v[1] ^ k0, lo1, hi0 ^ c.v[3] ^ k1, lo0}};
        c = n;
    }
    return c;
}

// The counter of a block of normals of `path` (block = step / 2 in fp64, step / 4 in fp32),
// under the key of `seed`.
inline u32x4 philox_path(uint64_t seed, uint64_t path, uint32_t block) {
    u32x4 c = {{block, 0u, static_cast<uint32_t>(path), static_cast<uint32_t>(path >> 32)}};
    return philox4x32_10(c, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

// 52-bit uniform in (0, 1): (k + 0.5) 2^-52 with k = (hi << 20) ^ (lo >> 12).
inline double uniform_f64(uint32_t hi, uint32_t lo) {
    uint64_t k = (static_cast<uint64_t>(hi) << 20) ^ (static_cast<uint64_t>(lo) >> 12);
    return (static_cast<double>(k) + 0.5) * (1.0 / 4503599627370496.0);
}

// 23-bit uniform in (0, 1): ((x >> 9) + 0.5) 2^-23.
inline float uniform_f32(uint32_t x) { return (static_cast<float>(x >> 9) + 0.5f) * (1.0f / 8388608.0f); }

// The fp64 normals of steps 2 pair and 2 pair + 1 of `path` (Box and Muller 1958).
inline void normal_pair_f64(uint64_t seed, uint64_t path, uint32_t pair, double &z0, double &z1) {
    u32x4 x = philox_path(seed, path, pair);
    double u1 = uniform_f64(x.v[0], x.v[1]);
    double u2 = uniform_f64(x.v[2], x.v[3]);
    double r = sycl::sqrt(-2.0 * sycl::log(u1));
    double a = 2.0 * 3.141592653589793 * u2;
    z0 = r * sycl::cos(a);
    z1 = r * sycl::sin(a);
}

// The fp64 standard normal of (seed, path, step).
inline double normal_f64(uint64_t seed, uint64_t path, uint32_t step) {
    double z0, z1;
    normal_pair_f64(seed, path, step >> 1, z0, z1);
    return (step & 1u) == 0u ? z0 : z1;
}

// The four fp32 normals of steps 4 quad .. 4 quad + 4 of `path`.
inline void normal_quad_f32(uint64_t seed, uint64_t path, uint32_t quad, float z[4]) {
    u32x4 x = philox_path(seed, path, quad);
    for (int h = 0; h < 2; ++h) {
        float r = sycl::sqrt(-2.0f * sycl::log(uniform_f32(x.v[2 * h])));
        float a = 2.0f * 3.14159265358979323846f * uniform_f32(x.v[2 * h + 1]);
        z[2 * h] = r * sycl::cos(a);
        z[2 * h + 1] = r * sycl::sin(a);
    }
}

// The fp32 standard normal of (seed, path, step).
inline float normal_f32(uint64_t seed, uint64_t path, uint32_t step) {
    float z[4];
    normal_quad_f32(seed, path, step >> 2, z);
    return z[step & 3u];
}

// This work-item's nd_item inside a free-function kernel.
inline sycl::nd_item<1> item() { return sycl::ext::oneapi::this_work_item::get_nd_item<1>(); }

// Block-reduction helpers: work-group g covers items g TENOR_BLOCK .. (g + 1) TENOR_BLOCK of
// `items`; each work-item takes a strided share. `first` and `stride` give that share.
inline uint64_t block_first(const sycl::nd_item<1> &it) {
    return it.get_group(0) * static_cast<uint64_t>(TENOR_BLOCK) + it.get_local_id(0);
}
inline uint64_t block_end(const sycl::nd_item<1> &it, uint64_t items) {
    uint64_t e = (it.get_group(0) + 1) * static_cast<uint64_t>(TENOR_BLOCK);
    return e < items ? e : items;
}
// The end of block `blk`'s items: min((blk + 1) TENOR_BLOCK, items).
inline uint64_t block_end_of(uint64_t blk, uint64_t items) {
    uint64_t e = (blk + 1) * static_cast<uint64_t>(TENOR_BLOCK);
    return e < items ? e : items;
}
inline double group_sum(const sycl::nd_item<1> &it, double x) {
    return sycl::reduce_over_group(it.get_group(), x, sycl::plus<double>());
}

// One block of mc_european (see its kernel.toml): pairs c TENOR_BLOCK .. min(pairs, (c + 1)
// TENOR_BLOCK) of one product, summed by the work-group (pairs 2j and 2j + 1 share Philox call
// j, its cosine and sine normals; each work-item takes the calls of the block with a stride of
// the local range), written by work-item 0 to out[0] (sum of Y) and out[1] (sum of Y^2).
// Shared by mc_european and mc_european_batch, so both give bitwise the same partials.
inline void mc_european_block(const sycl::nd_item<1> &it, double *out, uint64_t c, uint64_t seed, uint64_t pairs,
                              double spot, double strike, uint32_t is_call, double drift, double vol_sqrt_t,
                              double discount) {
    uint64_t first = c * static_cast<uint64_t>(TENOR_BLOCK);
    uint64_t end = first + static_cast<uint64_t>(TENOR_BLOCK) < pairs ? first + static_cast<uint64_t>(TENOR_BLOCK)
                                                                      : pairs;
    double w = is_call != 0u ? 1.0 : -1.0;
    double half_discount = 0.5 * discount;
    double sum = 0.0, sum_sq = 0.0;
    uint64_t stride = 2 * static_cast<uint64_t>(it.get_local_range(0));
    for (uint64_t p = first + 2 * it.get_local_id(0); p < end; p += stride) {
        double z[2];
        normal_pair_f64(seed, p >> 1, 0, z[0], z[1]);
        for (int h = 0; h < 2 && p + h < end; ++h) {
            double up = spot * sycl::exp(drift + vol_sqrt_t * z[h]);
            double dn = spot * sycl::exp(drift - vol_sqrt_t * z[h]);
            double y = half_discount * (sycl::fmax(w * (up - strike), 0.0) + sycl::fmax(w * (dn - strike), 0.0));
            sum += y;
            sum_sq += y * y;
        }
    }
    sum = group_sum(it, sum);
    sum_sq = group_sum(it, sum_sq);
    if (it.get_local_id(0) == 0) {
        out[0] = sum;
        out[1] = sum_sq;
    }
}

}  // namespace tenor

// The CUDA prelude's launch spellings, which kernels/common/shared.h uses: the items of this
// work-item (block_first, then strides of the local range, below block_end; the same for a
// kernel that CUDA runs with one thread per item), and the
// work-group sums of v[0 .. N) written by work-item 0 to out[N g + j] of this work-group g.
#define TENOR_FOR_ITEMS(index, n)                                                                      \
    for (uint64_t index = tenor::block_first(tenor::item()), tenor_end_ = tenor::block_end(tenor::item(), (n)); \
         index < tenor_end_; index += tenor::item().get_local_range(0))
#define TENOR_FOR_ITEM_PER_THREAD(index, n) TENOR_FOR_ITEMS(index, n)
#define TENOR_BLOCK_SUMS(v, N, out)                                                                    \
    for (int j = 0; j < N; ++j) {                                                                      \
        double tenor_t_ = tenor::group_sum(tenor::item(), (v)[j]);                                     \
        if (tenor::item().get_local_id(0) == 0) (out)[N * tenor::item().get_group(0) + j] = tenor_t_;  \
    }
#define TENOR_BLOCK_INDEX() (static_cast<uint64_t>(tenor::item().get_group(0)))
// a b + c as the product, then the sum (what the shared code computed before it spelled CUDA's
// fused multiply-adds out; SYCL's compiler contracts it or not exactly as before).
namespace tenor {
template <typename T>
inline T mul_add(T a, T b, T c) {
    const T m = a * b;
    return m + c;
}
}  // namespace tenor
#define TENOR_MUL_ADD(a, b, c) tenor::mul_add((a), (b), (c))
// The same for block `blk` of the launch's own numbering (blk = the work-group for a kernel of
// one product; work-group mod B of its product for the batch kernels): items blk TENOR_BLOCK +
// local id + k local range below min((blk + 1) TENOR_BLOCK, n), sums written to out[N blk + j].
#define TENOR_FOR_ITEMS_IN(index, n, blk)                                                              \
    for (uint64_t index = static_cast<uint64_t>(blk) * static_cast<uint64_t>(TENOR_BLOCK) +          \
                          tenor::item().get_local_id(0),                                               \
                  tenor_end_ = tenor::block_end_of(static_cast<uint64_t>(blk), (n));                   \
         index < tenor_end_; index += tenor::item().get_local_range(0))
#define TENOR_BLOCK_SUMS_IN(v, N, out, blk)                                                            \
    for (int j = 0; j < N; ++j) {                                                                      \
        double tenor_t_ = tenor::group_sum(tenor::item(), (v)[j]);                                     \
        if (tenor::item().get_local_id(0) == 0) (out)[N * static_cast<uint64_t>(blk) + j] = tenor_t_;  \
    }

// The CUDA prelude's spellings of the Philox words and the per-path normals (pointers for the
// outputs), which kernels/common/shared.h calls: the same values as tenor::philox4x32_10,
// uniform_f64, normal_pair_f64 and normal_quad_f32.
struct tenor_u32x4 {
    uint32_t x, y, z, w;
};
static inline tenor_u32x4 tenor_philox4x32_10(tenor_u32x4 c, uint32_t k0, uint32_t k1) {
    tenor::u32x4 r = tenor::philox4x32_10(tenor::u32x4{{c.x, c.y, c.z, c.w}}, k0, k1);
    return tenor_u32x4{r.v[0], r.v[1], r.v[2], r.v[3]};
}
static inline double tenor_uniform_f64(uint32_t hi, uint32_t lo) { return tenor::uniform_f64(hi, lo); }
static inline void tenor_normal_pair_f64(uint64_t seed, uint64_t path, uint32_t pair, double *z0, double *z1) {
    tenor::normal_pair_f64(seed, path, pair, *z0, *z1);
}
static inline void tenor_normal_quad_f32(uint64_t seed, uint64_t path, uint32_t quad, float z[4]) {
    tenor::normal_quad_f32(seed, path, quad, z);
}
