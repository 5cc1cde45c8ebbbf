// Tenor's SYCL device prelude, prepended to every kernels/<name>/sycl.cpp before the run-time
// compilation (sycl_ext_oneapi_kernel_compiler). The SYCL adapter puts `#define TENOR_BLOCK n`
// (the manifest's launch block) in front of it. Built with AdaptiveCpp (docs/sycl.md, ADR 0018)
// the same translation unit is compiled by `acpp` ahead of time (or, for an in-house kernel, at
// run time into a shared library): the few spellings that differ are under TENOR_SYCL_ACPP.
//
// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, SC'11) and Tenor's (seed, path, step) to
// uniform and normal mapping, written exactly as kernels/src/philox.rs: the 32-bit words agree
// bitwise with the CPU reference, the normals to the last ulps of log, sqrt, sin and cos.
#include <sycl/sycl.hpp>

#include <cstdint>

#if defined(__ADAPTIVECPP__)
#define TENOR_SYCL_ACPP 1
// AdaptiveCpp has no free-function kernels: the kernel is an ordinary function that the
// adapter's launcher (TENOR_ACPP_KERNEL below) calls from a parallel_for over an nd_range.
#define SYCL_EXT_ONEAPI_FUNCTION_PROPERTY(props)
namespace syclexp {}
#else
namespace syclexp = sycl::ext::oneapi::experimental;
#endif

#ifndef TENOR_BLOCK
#define TENOR_BLOCK 256u
#endif

// NVIDIA's math library under AdaptiveCpp's generic target. The generic (SSCP) device pass
// compiles this file once to LLVM IR; the JIT specialises it per backend at run time and folds
// `sycl::jit::introspect<sycl::jit::current_backend>` to a constant, so a branch on
// tenor::on_ptx() leaves only one side in the machine code: on NVIDIA GPUs (PTX) the libdevice
// functions that Tenor's CUDA kernels compile to (CUDA Math API: sincos, sincospi, the
// correctly rounded reciprocal, and for fp32 the fast approximations __logf, __sincosf,
// __cosf, __expf, __fdividef that kernels/common/prelude.cuh calls), resolved by the libdevice
// bitcode that AdaptiveCpp's PTX backend links into every module; everywhere else (the host
// backend CI runs, SPIR-V, DPC++) SYCL's accurate built-ins. -DTENOR_SYCL_PORTABLE_MATH keeps
// the portable built-ins on PTX too (for measuring what the math library is worth).
#if defined(__ADAPTIVECPP__) && ACPP_LIBKERNEL_IS_DEVICE_PASS_SSCP && !defined(TENOR_SYCL_PORTABLE_MATH)
#define TENOR_SYCL_PTX_MATH 1
extern "C" void __nv_sincos(double, double *, double *);
extern "C" void __nv_sincospi(double, double *, double *);
extern "C" double __nv_drcp_rn(double);
extern "C" unsigned int __nv_umulhi(unsigned int, unsigned int);
extern "C" float __nv_rsqrtf(float);
extern "C" double __nv_fma(double, double, double);
extern "C" float __nv_fast_logf(float);
extern "C" float __nv_fast_expf(float);
extern "C" float __nv_fast_cosf(float);
extern "C" void __nv_fast_sincosf(float, float *, float *);
extern "C" float __nv_fast_fdividef(float, float);
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
#define TENOR_SINCOS(x, s, c) tenor::sincos_f64((x), (s), (c))
// Kernel arguments need no address space, and the block sums no scratch argument (OpenCL C
// needs both: prelude.cl).
#define TENOR_GLOBAL
#define TENOR_SCRATCH_PARAM
#define TENOR_SCRATCH_ARG
// 0: kernels/common/basket.h runs the basket's path kernels with one work-item per path (CUDA
// runs one lane per asset: prelude.cuh, ADR 0035).
#define TENOR_WARP_LANES 0

namespace tenor {

struct u32x4 {
    uint32_t v[4];
};

// Whether this code runs on an NVIDIA GPU through AdaptiveCpp's generic target (a constant of
// the JIT, see TENOR_SYCL_PTX_MATH above); false everywhere else.
inline bool on_ptx() {
#if defined(TENOR_SYCL_PTX_MATH)
    return sycl::jit::introspect<sycl::jit::current_backend, int>() == sycl::jit::backend::ptx;
#else
    return false;
#endif
}

// The high and low words of the 64-bit product a b. On PTX CUDA's __umulhi and a 32-bit
// product, as prelude.cuh: written as one 64-bit product, LLVM keeps the whole Philox chain in
// 64-bit registers (the zero-extended words and their XORs), which doubled the integer
// instructions of every round on NVIDIA GPUs (scripts/sycl-sass shows both listings, ADR 0025).
inline void mulhilo(uint32_t a, uint32_t b, uint32_t &hi, uint32_t &lo) {
#if defined(TENOR_SYCL_PTX_MATH)
    if (on_ptx()) {
        hi = __nv_umulhi(a, b);
        lo = a * b;
        return;
    }
#endif
    uint64_t p = static_cast<uint64_t>(a) * static_cast<uint64_t>(b);
    hi = static_cast<uint32_t>(p >> 32);
    lo = static_cast<uint32_t>(p);
}

// sin x and cos x: one libdevice sincos on PTX (one argument reduction for both, as CUDA's
// sincos), sycl::sin and sycl::cos elsewhere.
inline void sincos_f64(double x, double *s, double *c) {
#if defined(TENOR_SYCL_PTX_MATH)
    if (on_ptx()) {
        __nv_sincos(x, s, c);
        return;
    }
#endif
    *s = sycl::sin(x);
    *c = sycl::cos(x);
}

// sin(pi x) and cos(pi x): CUDA's sincospi on PTX (exact argument scaling); elsewhere sin and
// cos of the rounded product pi x. Not sycl::sinpi / sycl::cospi: AdaptiveCpp 49544a4's host
// builtins compute cos(x) / pi and sin(x) / pi (src/libkernel/sscp/host/math.cpp), which the
// SYCL book test caught on the host JIT. For x = 2 u the product is the CPU reference's
// (2 pi) u exactly (doubling is exact), so the host matches it as before.
inline void sincospi_f64(double x, double *s, double *c) {
#if defined(TENOR_SYCL_PTX_MATH)
    if (on_ptx()) {
        __nv_sincospi(x, s, c);
        return;
    }
#endif
    const double a = 3.141592653589793 * x;
    *s = sycl::sin(a);
    *c = sycl::cos(a);
}

// 1 / x correctly rounded (IEEE division; CUDA's __drcp_rn on PTX, the same value).
inline double recip_f64(double x) {
#if defined(TENOR_SYCL_PTX_MATH)
    if (on_ptx()) return __nv_drcp_rn(x);
#endif
    return 1.0 / x;
}

// a b + c: one fused multiply-add on PTX (as CUDA's prelude spells it); elsewhere the product,
// then the sum (what the shared code computed before it spelled CUDA's fma out; the host
// compiler contracts it or not exactly as before).
template <typename T>
inline T mul_add(T a, T b, T c) {
#if defined(TENOR_SYCL_PTX_MATH)
    if (on_ptx()) return sycl::fma(a, b, c);
#endif
    const T m = a * b;
    return m + c;
}

// The fp32 functions of the normals and mc_european_f32: CUDA's fast intrinsics on PTX
// (__logf, __expf, __cosf, __sincosf, __fdividef: absolute error 2^-21.41 in their ranges,
// CUDA Math API), SYCL's accurate built-ins elsewhere.
inline float log_f32(float x) {
#if defined(TENOR_SYCL_PTX_MATH)
    if (on_ptx()) return __nv_fast_logf(x);
#endif
    return sycl::log(x);
}
inline float exp_f32(float x) {
#if defined(TENOR_SYCL_PTX_MATH)
    if (on_ptx()) return __nv_fast_expf(x);
#endif
    return sycl::exp(x);
}
inline float cos_f32(float x) {
#if defined(TENOR_SYCL_PTX_MATH)
    if (on_ptx()) return __nv_fast_cosf(x);
#endif
    return sycl::cos(x);
}
inline void sincos_f32(float x, float *s, float *c) {
#if defined(TENOR_SYCL_PTX_MATH)
    if (on_ptx()) {
        __nv_fast_sincosf(x, s, c);
        return;
    }
#endif
    *s = sycl::sin(x);
    *c = sycl::cos(x);
}
// sqrt(l) for the fp32 Box-Muller radius: l rsqrt(l) on PTX (CUDA's rsqrtf, as prelude.cuh),
// SYCL's IEEE sqrt elsewhere.
inline float radius_f32(float l) {
#if defined(TENOR_SYCL_PTX_MATH)
    if (on_ptx()) return l * __nv_rsqrtf(l);
#endif
    return sycl::sqrt(l);
}
inline float div_f32(float a, float b) {
#if defined(TENOR_SYCL_PTX_MATH)
    if (on_ptx()) return __nv_fast_fdividef(a, b);
#endif
    return a / b;
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

// 52-bit uniform in (0, 1): (k + 0.5) 2^-52 with k = (hi << 20) ^ (lo >> 12), built from the
// bits as prelude.cuh does (no integer-to-double conversion): 1 + k 2^-52 has k as its
// mantissa, subtracting 1 is exact (Sterbenz) and adding 2^-53 gives (2k + 1) 2^-53 exactly.
// Bitwise the CPU reference's (k as f64 + 0.5) 2^-52.
inline double uniform_f64(uint32_t hi, uint32_t lo) {
    uint64_t k = (static_cast<uint64_t>(hi) << 20) ^ (static_cast<uint64_t>(lo) >> 12);
    return (sycl::bit_cast<double>(0x3FF0000000000000ull | k) - 1.0) + 0x1p-53;
}

// 23-bit uniform in (0, 1): ((x >> 9) + 0.5) 2^-23, by the same construction in fp32 (bitwise
// the CPU reference's value).
inline float uniform_f32(uint32_t x) { return (sycl::bit_cast<float>(0x3F800000u | (x >> 9)) - 1.0f) + 0x1p-24f; }

// The fp64 normals of steps 2 pair and 2 pair + 1 of `path` (Box and Muller 1958).
inline void normal_pair_f64(uint64_t seed, uint64_t path, uint32_t pair, double &z0, double &z1) {
    u32x4 x = philox_path(seed, path, pair);
    double u1 = uniform_f64(x.v[0], x.v[1]);
    double u2 = uniform_f64(x.v[2], x.v[3]);
    double r = sycl::sqrt(-2.0 * sycl::log(u1));
    double s, c;
    sincos_f64((2.0 * 3.141592653589793) * u2, &s, &c);
    z0 = r * c;
    z1 = r * s;
}

// The fp64 standard normal of (seed, path, step).
inline double normal_f64(uint64_t seed, uint64_t path, uint32_t step) {
    double z0, z1;
    normal_pair_f64(seed, path, step >> 1, z0, z1);
    return (step & 1u) == 0u ? z0 : z1;
}

// Box-Muller in fp32 on words (a, b), as prelude.cuh's tenor_box_muller_f32: the angle taken as
// 2 pi (u - 1/2), exact in fp32 and inside [-pi, pi] where the fast sincos is accurate, and the
// signs flipped back (cos(t - pi) = -cos t, sin(t - pi) = -sin t).
inline void box_muller_f32(uint32_t a, uint32_t b, float &z0, float &z1) {
    const float r = sycl::sqrt(-2.0f * log_f32(uniform_f32(a)));
    float s, c;
    sincos_f32(6.2831855f * (uniform_f32(b) - 0.5f), &s, &c);
    z0 = -r * c;
    z1 = -r * s;
}

// Only the first (cosine) normal of words (a, b), as box_muller_f32's z0. On PTX the radius
// is l rsqrt(l) as prelude.cuh's tenor_box_muller_cos_f32 (MUFU.RSQ and one multiply, a few
// ulp), elsewhere the IEEE square root.
inline float box_muller_cos_f32(uint32_t a, uint32_t b) {
    const float l = -2.0f * log_f32(uniform_f32(a));
    return -radius_f32(l) * cos_f32(6.2831855f * (uniform_f32(b) - 0.5f));
}

// The four fp32 normals of steps 4 quad .. 4 quad + 3 of `path`: words (0, 1) give steps
// 4 quad, 4 quad + 1 (cos, sin), words (2, 3) steps 4 quad + 2, 4 quad + 3.
inline void normal_quad_f32(uint64_t seed, uint64_t path, uint32_t quad, float z[4]) {
    u32x4 x = philox_path(seed, path, quad);
    box_muller_f32(x.v[0], x.v[1], z[0], z[1]);
    box_muller_f32(x.v[2], x.v[3], z[2], z[3]);
}

// The fp32 standard normal of (seed, path, step) (only the Box-Muller pair it needs).
inline float normal_f32(uint64_t seed, uint64_t path, uint32_t step) {
    u32x4 x = philox_path(seed, path, step >> 2);
    float a, b;
    if ((step & 2u) != 0u) box_muller_f32(x.v[2], x.v[3], a, b);
    else box_muller_f32(x.v[0], x.v[1], a, b);
    return (step & 1u) != 0u ? b : a;
}

// This work-item's nd_item inside a free-function kernel.
#if defined(TENOR_SYCL_ACPP)
// AdaptiveCpp: built the way its own nd_range launchers build it (glue/llvm-sscp/
// sscp_kernel_launcher.hpp for the generic target, the CUDA launcher for cuda:sm_XX): every
// query is answered by the backend's builtins, not by stored values. get_offset() is zero
// (Tenor launches have no offset). sycl::id's constructor is not constexpr, so a static
// sycl::id would need a guarded initialisation, which device code cannot link: the zero is a
// constant-initialised array of the same layout (AdaptiveCpp's id<1> holds one size_t).
struct zero_offset_storage {
    size_t value[1];
};
inline constexpr zero_offset_storage zero_offset_value{{0}};
inline const sycl::id<1> *zero_offset() { return reinterpret_cast<const sycl::id<1> *>(&zero_offset_value); }
inline sycl::nd_item<1> item() {
#if defined(HIPSYCL_ONDEMAND_ITERATION_SPACE_INFO)
    return sycl::nd_item<1>(zero_offset());
#else
    return sycl::nd_item<1>(zero_offset(), sycl::detail::get_group_id<1>(), sycl::detail::get_local_id<1>(),
                            sycl::detail::get_local_size<1>(), sycl::detail::get_grid_size<1>());
#endif
}
#else
inline sycl::nd_item<1> item() { return sycl::ext::oneapi::this_work_item::get_nd_item<1>(); }
#endif

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
#if defined(TENOR_SYCL_ACPP) && ACPP_LIBKERNEL_IS_DEVICE_PASS_SSCP
// AdaptiveCpp's generic target has no group reductions at the pinned commit (the
// __acpp_sscp_work_group_reduce_* builtins are declared, defined for no backend): the sum is a
// tree over work-group local memory (the launcher's local_accessor of local-range doubles,
// AdaptiveCpp's dynamic local memory at offset 0, as its local_memory_allocator addresses it)
// with group barriers. Another order of the same additions than reduce_over_group's: the
// conformance suite compares block sums within FP64_RTOL.
inline double group_sum_tree(const sycl::nd_item<1> &it, double x) {
    double *s = reinterpret_cast<double *>((char *)__acpp_sscp_get_dynamic_local_memory());
    const size_t l = it.get_local_id(0), n = it.get_local_range(0);
    size_t p = 1;
    while (p < n) p <<= 1;
    s[l] = x;
    sycl::group_barrier(it.get_group());
    for (size_t stride = p >> 1; stride > 0; stride >>= 1) {
        if (l < stride && l + stride < n) s[l] += s[l + stride];
        sycl::group_barrier(it.get_group());
    }
    double r = s[0];
    sycl::group_barrier(it.get_group());  // s is free for the next call
    return r;
}
// The branch per backend as AdaptiveCpp's own local memory access chooses it (the host branch
// is the host fallback, never run for a generic-target kernel).
inline double group_sum(const sycl::nd_item<1> &it, double x) {
    __acpp_backend_switch(return sycl::reduce_over_group(it.get_group(), x, sycl::plus<double>()),
                          return group_sum_tree(it, x),
                          return sycl::reduce_over_group(it.get_group(), x, sycl::plus<double>()),
                          return sycl::reduce_over_group(it.get_group(), x, sycl::plus<double>()));
}
#if defined(TENOR_SYCL_PTX_MATH)
// Warp shuffles on PTX: the generic target has no sub-group shuffle at the pinned commit
// (__acpp_sscp_sub_group_* are declared, defined for no backend), so the NVVM intrinsic that
// CUDA's __shfl_down_sync lowers to is called by its LLVM name. Only a branch that
// tenor::on_ptx() keeps calls it; the JIT removes it for every other backend before code
// generation. A double travels as its two 32-bit halves, as CUDA's shuffle of a double does.
extern "C" int tenor_nvvm_shfl_down_i32(unsigned int mask, int value, int delta, int clamp)
    __asm__("llvm.nvvm.shfl.sync.down.i32");
inline double shfl_down_f64(double x, int delta) {
    const uint64_t b = sycl::bit_cast<uint64_t>(x);
    const uint32_t lo = static_cast<uint32_t>(tenor_nvvm_shfl_down_i32(0xffffffffu, static_cast<int>(static_cast<uint32_t>(b)), delta, 0x1f));
    const uint32_t hi = static_cast<uint32_t>(tenor_nvvm_shfl_down_i32(0xffffffffu, static_cast<int>(static_cast<uint32_t>(b >> 32)), delta, 0x1f));
    return sycl::bit_cast<double>((static_cast<uint64_t>(hi) << 32) | lo);
}
// The work-group sums of v[0 .. N) left in work-item 0's v (the other work-items' v are
// partial), as prelude.cuh's tenor_block_sum: a warp-shuffle tree in each warp, the warps'
// totals through local memory (N per warp: N <= 32 fits the launcher's local-range doubles),
// one barrier, then warp 0 sums them. The work-group size must be a multiple of 32 (every lane
// of a warp shuffles); the caller checks.
template <int N>
inline void group_sums_warps(const sycl::nd_item<1> &it, double v[N]) {
    double *s = reinterpret_cast<double *>((char *)__acpp_sscp_get_dynamic_local_memory());
    const uint32_t l = static_cast<uint32_t>(it.get_local_id(0));
    const uint32_t warps = static_cast<uint32_t>(it.get_local_range(0)) >> 5;
    for (int j = 0; j < N; ++j) {
        for (int d = 16; d > 0; d >>= 1) v[j] += shfl_down_f64(v[j], d);
    }
    if ((l & 31u) == 0u) {
        for (int j = 0; j < N; ++j) s[j * warps + (l >> 5)] = v[j];
    }
    sycl::group_barrier(it.get_group());
    if (l < 32u) {
        for (int j = 0; j < N; ++j) {
            double x = l < warps ? s[j * warps + l] : 0.0;
            for (int d = 16; d > 0; d >>= 1) x += shfl_down_f64(x, d);
            v[j] = x;
        }
    }
    sycl::group_barrier(it.get_group());  // s is free for the next call
}
#endif
#else
inline double group_sum(const sycl::nd_item<1> &it, double x) {
    return sycl::reduce_over_group(it.get_group(), x, sycl::plus<double>());
}
#endif

// The work-group sums of v[0 .. N), left in work-item 0's v (TENOR_BLOCK_SUMS writes them):
// warp shuffles on PTX (above) when the work-group is whole warps, elsewhere one group_sum per
// value (the order of additions of before: bitwise the same sums on the host and on DPC++).
template <int N>
inline void group_sums(const sycl::nd_item<1> &it, double v[N]) {
#if defined(TENOR_SYCL_PTX_MATH)
    if (on_ptx() && it.get_local_range(0) % 32u == 0u) {
        group_sums_warps<N>(it, v);
        return;
    }
#endif
    for (int j = 0; j < N; ++j) v[j] = group_sum(it, v[j]);
}

// Work-item 0's x to every work-item of the group. AdaptiveCpp's generic target has no group
// broadcast at the pinned commit (as for the reductions above): through work-group local memory
// (the launcher's dynamic local memory, as group_sum_tree uses it) with group barriers.
inline double group_broadcast0(const sycl::nd_item<1> &it, double x) {
#if defined(TENOR_SYCL_ACPP) && ACPP_LIBKERNEL_IS_DEVICE_PASS_SSCP
    double *s = reinterpret_cast<double *>((char *)__acpp_sscp_get_dynamic_local_memory());
    sycl::group_barrier(it.get_group());  // an earlier use of s is done
    if (it.get_local_id(0) == 0) s[0] = x;
    sycl::group_barrier(it.get_group());
    const double r = s[0];
    sycl::group_barrier(it.get_group());  // s is free for the next call
    return r;
#else
    return sycl::group_broadcast(it.get_group(), x, 0);
#endif
}

// Fused antithetic Monte Carlo European, fp64 (mc_european and mc_european_batch), the
// algorithm of prelude.cuh's and prelude.cl's: pairs 2j and 2j + 1 share Philox call j (the
// cosine and sine normals of one Box-Muller transform); each work-item takes the calls j of
// its block with a stride of the local range and sums in registers; exp(drift -/+ v z) as
// spot exp(drift) times exp(v z) and its correctly rounded reciprocal; sin and cos of 2 pi u
// as sincospi(2 u) (one call, exact argument scaling); the option type a template parameter;
// the discount applied once per block. Results differ from the CPU reference by a few ulp per
// path, as CUDA's and OpenCL's do.
template <bool CALL>
inline double mc_european_pair(double spot_fwd, double strike, double e) {
    const double up = spot_fwd * e;
    const double dn = spot_fwd * recip_f64(e);
    return CALL ? sycl::fmax(up - strike, 0.0) + sycl::fmax(dn - strike, 0.0)
                : sycl::fmax(strike - up, 0.0) + sycl::fmax(strike - dn, 0.0);
}

template <bool CALL>
inline void mc_european_sums(const sycl::nd_item<1> &it, double v[2], uint64_t seed, uint64_t first, uint32_t n,
                             double spot_fwd, double strike, double vol_sqrt_t) {
    const uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
    const uint64_t j0 = first >> 1;
    const uint32_t stride = 2u * static_cast<uint32_t>(it.get_local_range(0));
    for (uint32_t q = 2u * static_cast<uint32_t>(it.get_local_id(0)); q < n; q += stride) {
        const uint64_t j = j0 + (q >> 1);
        const u32x4 x = philox4x32_10(u32x4{{0u, 0u, static_cast<uint32_t>(j), static_cast<uint32_t>(j >> 32)}}, k0, k1);
        // vol sqrt(T) times the Box-Muller radius, once for both normals.
        const double vr = vol_sqrt_t * sycl::sqrt(-2.0 * sycl::log(uniform_f64(x.v[0], x.v[1])));
        double s, co;
        sincospi_f64(2.0 * uniform_f64(x.v[2], x.v[3]), &s, &co);
        const double y0 = mc_european_pair<CALL>(spot_fwd, strike, sycl::exp(vr * co));
        v[0] += y0;
        v[1] += y0 * y0;
        if (q + 1u < n) {
            const double y1 = mc_european_pair<CALL>(spot_fwd, strike, sycl::exp(vr * s));
            v[0] += y1;
            v[1] += y1 * y1;
        }
    }
}

// One block of mc_european (see its kernel.toml): pairs c TENOR_BLOCK .. min(pairs, (c + 1)
// TENOR_BLOCK) of one product, summed by the work-group, written by work-item 0 to out[0]
// (sum of Y) and out[1] (sum of Y^2). Shared by mc_european and mc_european_batch, so both
// give bitwise the same partials.
inline void mc_european_block(const sycl::nd_item<1> &it, double *out, uint64_t c, uint64_t seed, uint64_t pairs,
                              double spot, double strike, uint32_t is_call, double drift, double vol_sqrt_t,
                              double discount) {
    const double spot_fwd = spot * sycl::exp(drift);
    const uint64_t first = c * static_cast<uint64_t>(TENOR_BLOCK);
    const uint64_t end = first + static_cast<uint64_t>(TENOR_BLOCK) < pairs ? first + static_cast<uint64_t>(TENOR_BLOCK)
                                                                            : pairs;
    const uint32_t n = static_cast<uint32_t>(end - first);
    double v[2] = {0.0, 0.0};
    if (is_call != 0u) {
        mc_european_sums<true>(it, v, seed, first, n, spot_fwd, strike, vol_sqrt_t);
    } else {
        mc_european_sums<false>(it, v, seed, first, n, spot_fwd, strike, vol_sqrt_t);
    }
    const double h = 0.5 * discount;
    group_sums<2>(it, v);
    if (it.get_local_id(0) == 0) {
        // Y = discount / 2 * (pair payoff): the sums scaled once.
        out[0] = h * v[0];
        out[1] = h * h * v[1];
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
    tenor::group_sums<N>(tenor::item(), (v));                                                          \
    if (tenor::item().get_local_id(0) == 0) {                                                          \
        for (int j = 0; j < N; ++j) (out)[N * tenor::item().get_group(0) + j] = (v)[j];                \
    }
#define TENOR_BLOCK_INDEX() (static_cast<uint64_t>(tenor::item().get_group(0)))
// The work-group sums of v[0 .. N), left in work-item 0's v (every work-item calls it), and a
// work-group barrier whose fence covers global and local memory (SYCL 2020, group_barrier).
#define TENOR_GROUP_SUMS(v, N) tenor::group_sums<N>(tenor::item(), (v))
// A cache hint (prelude.cuh's prefetches into L1); none here.
#define TENOR_PREFETCH(p) ((void)(p))
// Work-item 0's v[0 .. N) to every work-item of the group (tenor::group_broadcast0).
#define TENOR_GROUP_BROADCAST(v, N)                                                                \
    for (int tenor_j_ = 0; tenor_j_ < (N); ++tenor_j_) (v)[tenor_j_] = tenor::group_broadcast0(tenor::item(), (v)[tenor_j_])
// No grid-wide barrier: work-groups of one launch are not guaranteed to be resident at once, so
// kernels that would wait on each other take one launch per step (basket_backward's dates = 1).
#define TENOR_HAS_GRID_SYNC 0
#define TENOR_GRID_SYNC(counter, target) ((void)(counter), (void)(target))
// a b + c: tenor::mul_add (a fused multiply-add on PTX as CUDA's fma, elsewhere the product,
// then the sum).
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
    tenor::group_sums<N>(tenor::item(), (v));                                                          \
    if (tenor::item().get_local_id(0) == 0) {                                                          \
        for (int j = 0; j < N; ++j) (out)[N * static_cast<uint64_t>(blk) + j] = (v)[j];                \
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
