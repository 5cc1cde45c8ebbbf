// Tenor's device code written once for CUDA, SYCL and OpenCL: `tenor_kernels::prelude` appends
// this file to kernels/common/prelude.cuh, kernels/common/prelude.hpp and kernels/common/prelude.cl,
// so it is part of every CUDA, SYCL and OpenCL translation unit (then kernels/common/asian.h,
// twice). It is written in the common subset of CUDA C++, SYCL C++ (C++17) and OpenCL C 1.2:
// no references, templates or overloads; structs named through a typedef; pointers to kernel
// arguments marked TENOR_GLOBAL; with the spellings each of those preludes defines before it:
//
//   TENOR_DEVICE_INLINE   an inlined device function (__device__ __forceinline__ / static inline)
//   TENOR_DEVICE          a device function (__device__ / static)
//   TENOR_MATH(f)         the math function f, fp64 or fp32 by its argument (CUDA Math API f,
//                         with CUDA's float overloads / sycl::f)
//   TENOR_NAN_F64()       the quiet NaN 0x7FF8000000000000
//   TENOR_INF_F64()       +infinity, 0x7FF0000000000000
//   TENOR_SINCOS(x, s, c) *s = sin x, *c = cos x (CUDA sincos / sycl::sin and sycl::cos)
//   tenor_u32, tenor_u64  32- and 64-bit unsigned integers
//   tenor_u32x4, tenor_philox4x32_10, tenor_uniform_f64, tenor_normal_pair_f64,
//   tenor_normal_quad_f32 Philox words and Tenor's normals, each backend's own (prelude.hpp
//                         gives SYCL's under the CUDA names)
//   TENOR_FOR_ITEMS(i, n) the items of this thread or work-item in its block (strided)
//   TENOR_FOR_ITEM_PER_THREAD(i, n)  the same for kernels CUDA runs with one thread per item
//   TENOR_BLOCK_SUMS(v, N, out)      block sums of v[0 .. N) written to out[N b + j]
//   TENOR_MUL_ADD(a, b, c)           a b + c: CUDA's fma / SYCL's product then sum
//   TENOR_BLOCK_INDEX()              this block's (work-group's) index in the launch
//   TENOR_FOR_ITEMS_IN(i, n, blk), TENOR_BLOCK_SUMS_IN(v, N, out, blk)  the same two for block blk
//                         of a product's own numbering (the batch kernels: launch block b is
//                         block b mod B of product b / B)
//   TENOR_GLOBAL          the address space of kernel arguments (OpenCL's __global; empty for
//                         CUDA and SYCL)
//   TENOR_SCRATCH_PARAM, TENOR_SCRATCH_ARG  the work-group scratch that TENOR_BLOCK_SUMS needs,
//                         as the last parameter and argument of a function that sums over the
//                         block (OpenCL C 1.2 declares __local memory only in the kernel; empty
//                         for CUDA and SYCL)
//
// Each kernel's cuda.cu, sycl.cpp and opencl.cl keep only the entry point (its name and arguments from
// kernel.toml) and call the function below, so the two backends run the same operations in the
// same order (each with its own math library). A kernel's code is either per item
// (curve_build, heston_price, implied_vol) or one function for the whole block: NVRTC optimises
// an inlined function's body before inlining it, and a per-item function holding a step loop
// (tried for mc_barrier and mc_asian) gave sm_90 images with the same PTX operations but other
// registers, whereas a whole-block function compiles byte for byte as the code it replaced.

// ---------------------------------------------------------------------------------------------
// The batch kernels over products (mc_barrier_batch, mc_asian_batch, heston_qe_batch; ADR 0009):
// launch block b is block b mod B of product b / B, with B = max(ceil(pairs / TENOR_BLOCK), 1)
// blocks per product, so each product's blocks are those of its single kernel launched alone.
// A block past the last product returns as a whole (no barrier is skipped by part of it).
TENOR_DEVICE_INLINE tenor_u64 tenor_batch_blocks(tenor_u64 pairs) {
    const tenor_u64 b = (pairs + TENOR_BLOCK - 1) / TENOR_BLOCK;
    return b == 0 ? 1 : b;
}

// ---------------------------------------------------------------------------------------------
// Barrier path valuation of payoff_barrier and mc_barrier (semantics in their manifests; the
// same steps as kernels/src/barrier.rs).
#define TENOR_BRIDGE_CUTOFF 40.0

struct tenor_barrier_params {
    double h, two_over_var, rate_dt, rebate_offset, strike, w, rebate, discount;
    bool down, out, continuous;
};
typedef struct tenor_barrier_params tenor_barrier_params;

TENOR_DEVICE_INLINE tenor_barrier_params tenor_barrier_make(double strike, double barrier, double rebate,
                                                            tenor_u32 is_call, tenor_u32 kind, tenor_u32 continuous,
                                                            double vol_sqrt_dt, double rate_dt, double discount) {
    tenor_barrier_params p;
    p.h = TENOR_MATH(log)(barrier);
    p.down = kind < 2u;
    p.out = (kind & 1u) == 0u;
    p.continuous = continuous != 0u;
    p.two_over_var = 2.0 / (vol_sqrt_dt * vol_sqrt_dt);
    p.rate_dt = rate_dt;
    p.rebate_offset = continuous != 0u ? 0.5 : 1.0;
    p.strike = strike;
    p.w = is_call != 0u ? 1.0 : -1.0;
    p.rebate = rebate;
    p.discount = discount;
    return p;
}

struct tenor_barrier_path { double x, survival, rebate_value; };
typedef struct tenor_barrier_path tenor_barrier_path;

TENOR_DEVICE_INLINE tenor_barrier_path tenor_barrier_start(double x0) {
    tenor_barrier_path s;
    s.x = x0; s.survival = 1.0; s.rebate_value = 0.0;
    return s;
}

TENOR_DEVICE_INLINE void tenor_barrier_step(const tenor_barrier_params* p, tenor_barrier_path* s, tenor_u32 k,
                                            double x_next) {
    const bool live = p->down ? (x_next > p->h) : (x_next < p->h);
    double pk;
    if (!live) {
        pk = 0.0;
    } else if (p->continuous) {
        const double a = (s->x - p->h) * (x_next - p->h) * p->two_over_var;
        pk = a > TENOR_BRIDGE_CUTOFF ? 1.0 : 1.0 - TENOR_MATH(exp)(-a);
    } else {
        pk = 1.0;
    }
    if (pk < 1.0) {
        if (p->out && p->rebate != 0.0) {
            s->rebate_value +=
                p->rebate * s->survival * (1.0 - pk) * TENOR_MATH(exp)(-p->rate_dt * ((double)k + p->rebate_offset));
        }
        s->survival *= pk;
    }
    s->x = x_next;
}

TENOR_DEVICE_INLINE double tenor_barrier_value(const tenor_barrier_params* p, const tenor_barrier_path* s) {
    const double payoff = TENOR_MATH(fmax)(p->w * (TENOR_MATH(exp)(s->x) - p->strike), 0.0);
    if (p->out) return p->discount * payoff * s->survival + s->rebate_value;
    return p->discount * (payoff * (1.0 - s->survival) + p->rebate * s->survival);
}

// mc_barrier (see its kernel.toml): fused antithetic barrier Monte Carlo, fp64; per pair the
// mean Y of the discounted values of the two paths x +/- (drift_dt + vol_sqrt_dt z), z the
// normals of (seed, pair, step), from x0 = ln(spot); the block sums of Y and Y^2. One function
// for the whole block, as tenor_mc_asian (see there why). Block `blk` of the product's own
// numbering (its items blk TENOR_BLOCK ..), sums written to partials[2 blk], partials[2 blk + 1]:
// mc_barrier passes its launch's block, mc_barrier_batch the block within the product.
TENOR_DEVICE_INLINE void tenor_mc_barrier_block(TENOR_GLOBAL double* __restrict__ partials, tenor_u64 blk, tenor_u64 seed,
                                                tenor_u64 pairs, tenor_u32 steps, double spot, double strike,
                                                double barrier, double rebate, tenor_u32 is_call, tenor_u32 kind,
                                                tenor_u32 continuous, double drift_dt, double vol_sqrt_dt,
                                                double rate_dt, double discount TENOR_SCRATCH_PARAM) {
    const tenor_barrier_params prm =
        tenor_barrier_make(strike, barrier, rebate, is_call, kind, continuous, vol_sqrt_dt, rate_dt, discount);
    const double x0 = TENOR_MATH(log)(spot);
    double v[2] = {0.0, 0.0};
    TENOR_FOR_ITEMS_IN(i, pairs, blk) {
        tenor_barrier_path up = tenor_barrier_start(x0), dn = tenor_barrier_start(x0);
        double xu = x0, xd = x0;
        for (tenor_u32 k = 0; k < steps; k += 2) {
            double z0, z1;
            tenor_normal_pair_f64(seed, i, k >> 1, &z0, &z1);
            xu += drift_dt + vol_sqrt_dt * z0;
            xd += drift_dt - vol_sqrt_dt * z0;
            tenor_barrier_step(&prm, &up, k, xu);
            tenor_barrier_step(&prm, &dn, k, xd);
            if (k + 1 < steps) {
                xu += drift_dt + vol_sqrt_dt * z1;
                xd += drift_dt - vol_sqrt_dt * z1;
                tenor_barrier_step(&prm, &up, k + 1, xu);
                tenor_barrier_step(&prm, &dn, k + 1, xd);
            }
        }
        const double y = 0.5 * (tenor_barrier_value(&prm, &up) + tenor_barrier_value(&prm, &dn));
        v[0] += y;
        v[1] += y * y;
    }
    TENOR_BLOCK_SUMS_IN(v, 2, partials, blk);
}

// mc_barrier: tenor_mc_barrier_block for the launch's own block.
TENOR_DEVICE_INLINE void tenor_mc_barrier(TENOR_GLOBAL double* __restrict__ partials, tenor_u64 seed, tenor_u64 pairs,
                                          tenor_u32 steps, double spot, double strike, double barrier, double rebate,
                                          tenor_u32 is_call, tenor_u32 kind, tenor_u32 continuous, double drift_dt,
                                          double vol_sqrt_dt, double rate_dt, double discount TENOR_SCRATCH_PARAM) {
    tenor_mc_barrier_block(partials, TENOR_BLOCK_INDEX(), seed, pairs, steps, spot, strike, barrier, rebate, is_call,
                           kind, continuous, drift_dt, vol_sqrt_dt, rate_dt, discount TENOR_SCRATCH_ARG);
}

// mc_barrier_batch: mc_barrier for `products` products in one launch, product i's scalars from
// element i of each column; each product's blocks are tenor_mc_barrier_block's for it alone.
TENOR_DEVICE_INLINE void tenor_mc_barrier_batch(
    TENOR_GLOBAL double* __restrict__ partials, TENOR_GLOBAL const tenor_u32* __restrict__ steps,
    TENOR_GLOBAL const double* __restrict__ spot, TENOR_GLOBAL const double* __restrict__ strike,
    TENOR_GLOBAL const double* __restrict__ barrier, TENOR_GLOBAL const double* __restrict__ rebate,
    TENOR_GLOBAL const tenor_u32* __restrict__ is_call, TENOR_GLOBAL const tenor_u32* __restrict__ kind,
    TENOR_GLOBAL const tenor_u32* __restrict__ continuous, TENOR_GLOBAL const double* __restrict__ drift_dt,
    TENOR_GLOBAL const double* __restrict__ vol_sqrt_dt, TENOR_GLOBAL const double* __restrict__ rate_dt,
    TENOR_GLOBAL const double* __restrict__ discount, tenor_u32 products, tenor_u64 seed, tenor_u64 pairs,
    tenor_u64 items TENOR_SCRATCH_PARAM) {
    const tenor_u64 per_product = tenor_batch_blocks(pairs), b = TENOR_BLOCK_INDEX(), i = b / per_product;
    (void)items;
    if (i >= products) return;
    tenor_mc_barrier_block(partials + 2 * i * per_product, b % per_product, seed, pairs, steps[i], spot[i], strike[i],
                           barrier[i], rebate[i], is_call[i], kind[i], continuous[i], drift_dt[i], vol_sqrt_dt[i],
                           rate_dt[i], discount[i] TENOR_SCRATCH_ARG);
}

// ---------------------------------------------------------------------------------------------
// Laguerre polynomial L_j(x) by the three-term recurrence L_0 = 1, L_1 = 1 - x,
// L_{n+1} = ((2n + 1 - x) L_n - n L_{n-1}) / (n + 1), as kernels/lsm_basis/cpu.rs (the
// Longstaff-Schwartz basis of lsm_basis and lsm_exercise).
TENOR_DEVICE_INLINE double tenor_laguerre(tenor_u32 j, double x) {
    double prev = 1.0, cur = 1.0 - x;
    if (j == 0) return prev;
    for (tenor_u32 n = 1; n < j; ++n) {
        const double dn = (double)n;
        const double next = ((2.0 * dn + 1.0 - x) * cur - dn * prev) / (dn + 1.0);
        prev = cur;
        cur = next;
    }
    return cur;
}

// ---------------------------------------------------------------------------------------------
// curve_build (see its kernel.toml): one par-yield bootstrap per item, the same operations in the
// same order as kernels/src/curve.rs (whose module documentation gives the method: bills on the
// quoted basis, par bonds solved for ln D(T) by Newton's method through log-linear
// interpolation, Hagan and West 2006).
#define TENOR_CURVE_MAX_TENORS 32u
#define TENOR_CURVE_NEWTON_TOL 1e-12
#define TENOR_CURVE_NEWTON_MAX 64u
#define TENOR_CURVE_BILL_EPS 1e-12
#define TENOR_CURVE_COUPON_EPS 1e-9

// 2 ln(1 + y/2): a bond-equivalent yield as a continuously compounded rate.
TENOR_DEVICE_INLINE double tenor_curve_bey(double y) { return 2.0 * TENOR_MATH(log1p)(0.5 * y); }

// Coupon i (0-based, date order) of a par bond of `coupons` coupons to `tenor` at coupon y.
TENOR_DEVICE_INLINE double tenor_curve_time(double tenor, tenor_u32 coupons, tenor_u32 i) {
    return tenor - 0.5 * (double)(coupons - 1u - i);
}
TENOR_DEVICE_INLINE double tenor_curve_cash(double tenor, double y, tenor_u32 coupons, tenor_u32 i) {
    const double accrual = i == 0u ? TENOR_MATH(fmin)(tenor_curve_time(tenor, coupons, 0u), 0.5) : 0.5;
    return y * accrual + (i + 1u == coupons ? 1.0 : 0.0);
}

// ln D(tenor) of a par bond at y on the nodes (times[0..=last], logs[0..=last]); NaN if Newton
// does not stop.
TENOR_DEVICE double tenor_curve_par_bond(const double* times, const double* logs, tenor_u32 last, double tenor,
                                         double y) {
    const double t_prev = times[last], l_prev = logs[last];
    tenor_u32 coupons = 0u;
    while (tenor - 0.5 * (double)coupons > TENOR_CURVE_COUPON_EPS) ++coupons;
    double known = 0.0;
    tenor_u32 first = 0u, seg = 1u;
    while (first < coupons && tenor_curve_time(tenor, coupons, first) <= t_prev) {
        const double t = tenor_curve_time(tenor, coupons, first);
        while (times[seg] < t) ++seg;
        const double t0 = times[seg - 1u], t1 = times[seg], l0 = logs[seg - 1u], l1 = logs[seg];
        known += tenor_curve_cash(tenor, y, coupons, first) * TENOR_MATH(exp)(l0 + (l1 - l0) * (t - t0) / (t1 - t0));
        ++first;
    }
    double z = -tenor * tenor_curve_bey(y);
    for (tenor_u32 it = 0u; it < TENOR_CURVE_NEWTON_MAX; ++it) {
        double price = known, deriv = 0.0;
        for (tenor_u32 i = first; i < coupons; ++i) {
            const double w = (tenor_curve_time(tenor, coupons, i) - t_prev) / (tenor - t_prev);
            const double d = TENOR_MATH(exp)(l_prev + (z - l_prev) * w);
            const double cf = tenor_curve_cash(tenor, y, coupons, i);
            price += cf * d;
            deriv += cf * d * w;
        }
        const double step = (price - 1.0) / deriv;
        z -= step;
        if (TENOR_MATH(fabs)(step) <= TENOR_CURVE_NEWTON_TOL) return z;
        if (!TENOR_MATH(isfinite)(z)) break;
    }
    return TENOR_NAN_F64();
}

// The launch's tenor grid as nodes: times[0] = 0, logs[0] = 0 (D(0) = 1), times[k + 1] =
// tenors[k]. False (every output NaN) unless 1 <= m <= 32 and the tenors are finite, positive
// and increasing. Each thread or work-item calls it once, into its own arrays of
// TENOR_CURVE_MAX_TENORS + 1 values.
TENOR_DEVICE_INLINE bool tenor_curve_grid(TENOR_GLOBAL const double* tenors, tenor_u32 m, double* times, double* logs) {
    bool valid = m >= 1u && m <= TENOR_CURVE_MAX_TENORS;
    times[0] = 0.0;
    logs[0] = 0.0;
    if (valid) {
        for (tenor_u32 k = 0u; k < m; ++k) {
            const double t = tenors[k];
            if (!(TENOR_MATH(isfinite)(t) && t > times[k])) valid = false;
            times[k + 1u] = t;
        }
    }
    return valid;
}

// Curve c of n (tenor-major: reads par[k * n + c], writes log_df[k * n + c], so neighbouring
// items touch neighbouring addresses) on the grid of tenor_curve_grid; logs[1..=m] are this
// curve's nodes as they are solved.
TENOR_DEVICE_INLINE void tenor_curve_build_one(TENOR_GLOBAL const double* par, TENOR_GLOBAL double* log_df, tenor_u64 n, tenor_u64 c,
                                               tenor_u32 m, bool valid, const double* times, double* logs) {
    bool failed = !valid;
    for (tenor_u32 k = 0u; k < m; ++k) {
        double z = TENOR_NAN_F64();
        if (!failed) {
            const double tenor = times[k + 1u], y = par[(tenor_u64)k * n + c];
            if (TENOR_MATH(isfinite)(y) && y > -0.5) {
                z = tenor <= 1.0 + TENOR_CURVE_BILL_EPS ? -tenor * tenor_curve_bey(y)
                                                         : tenor_curve_par_bond(times, logs, k, tenor, y);
            }
        }
        failed = TENOR_MATH(isnan)(z);
        if (!failed) logs[k + 1u] = z;  // only a valid launch (m <= 32) solves a node
        log_df[(tenor_u64)k * n + c] = z;
    }
}

// ---------------------------------------------------------------------------------------------
// heston_price (see its kernel.toml): European prices under Heston, one item per (parameter set,
// quote), by the Lewis (2001) integral with a Black-Scholes control variate and the "little
// Heston trap" characteristic function (Albrecher et al. 2007) on a rational map of the
// frequency axis onto (0, 1), integrated with the caller's Gauss-Legendre nodes. The same
// operations in the same order as kernels/src/heston.rs, whose module documentation gives the
// formulas, sources and accuracy.
#define TENOR_HP_FRAC_1_SQRT_2 0.7071067811865476
#define TENOR_HP_FRAC_1_PI 0.3183098861837907

struct tenor_hp_cx { double re, im; };
typedef struct tenor_hp_cx tenor_hp_cx;

TENOR_DEVICE_INLINE tenor_hp_cx tenor_hp_make(double re, double im) {
    tenor_hp_cx z; z.re = re; z.im = im; return z;
}
TENOR_DEVICE_INLINE tenor_hp_cx tenor_hp_add(tenor_hp_cx a, tenor_hp_cx b) {
    return tenor_hp_make(a.re + b.re, a.im + b.im);
}
TENOR_DEVICE_INLINE tenor_hp_cx tenor_hp_sub(tenor_hp_cx a, tenor_hp_cx b) {
    return tenor_hp_make(a.re - b.re, a.im - b.im);
}
TENOR_DEVICE_INLINE tenor_hp_cx tenor_hp_mul(tenor_hp_cx a, tenor_hp_cx b) {
    return tenor_hp_make(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
TENOR_DEVICE_INLINE tenor_hp_cx tenor_hp_scale(tenor_hp_cx a, double s) {
    return tenor_hp_make(a.re * s, a.im * s);
}
// Smith's (1962) division.
TENOR_DEVICE_INLINE tenor_hp_cx tenor_hp_div(tenor_hp_cx a, tenor_hp_cx b) {
    if (TENOR_MATH(fabs)(b.re) >= TENOR_MATH(fabs)(b.im)) {
        const double r = b.im / b.re;
        const double den = b.re + b.im * r;
        return tenor_hp_make((a.re + a.im * r) / den, (a.im - a.re * r) / den);
    }
    const double r = b.re / b.im;
    const double den = b.re * r + b.im;
    return tenor_hp_make((a.re * r + a.im) / den, (a.im * r - a.re) / den);
}
// Principal square root.
TENOR_DEVICE_INLINE tenor_hp_cx tenor_hp_sqrt(tenor_hp_cx z) {
    const double r = TENOR_MATH(hypot)(z.re, z.im);
    if (r == 0.0) return tenor_hp_make(0.0, 0.0);
    if (z.re >= 0.0) {
        const double t = TENOR_MATH(sqrt)(0.5 * (r + z.re));
        return tenor_hp_make(t, z.im / (2.0 * t));
    }
    const double t = TENOR_MATH(sqrt)(0.5 * (r - z.re));
    return tenor_hp_make(TENOR_MATH(fabs)(z.im) / (2.0 * t), TENOR_MATH(copysign)(t, z.im));
}
TENOR_DEVICE_INLINE tenor_hp_cx tenor_hp_exp(tenor_hp_cx z) {
    const double m = TENOR_MATH(exp)(z.re);
    return tenor_hp_make(m * TENOR_MATH(cos)(z.im), m * TENOR_MATH(sin)(z.im));
}
// e^z - 1 = expm1(x) cos y - 2 sin^2(y/2) + i e^x sin y.
TENOR_DEVICE_INLINE tenor_hp_cx tenor_hp_expm1(tenor_hp_cx z) {
    const double s = TENOR_MATH(sin)(0.5 * z.im);
    return tenor_hp_make(TENOR_MATH(expm1)(z.re) * TENOR_MATH(cos)(z.im) - 2.0 * s * s,
                         TENOR_MATH(exp)(z.re) * TENOR_MATH(sin)(z.im));
}
// ln(1 + z), principal.
TENOR_DEVICE_INLINE tenor_hp_cx tenor_hp_log1p(tenor_hp_cx z) {
    const double re = 0.5 * TENOR_MATH(log1p)(2.0 * z.re + z.re * z.re + z.im * z.im);
    return tenor_hp_make(re, TENOR_MATH(atan2)(z.im, 1.0 + z.re));
}

// ln phi_H(u - i/2) at maturity t.
TENOR_DEVICE tenor_hp_cx tenor_hp_log_cf(double v0, double kappa, double theta, double sigma, double rho, double t,
                                         double u) {
    const double q = u * u + 0.25;
    const double s2 = sigma * sigma;
    const tenor_hp_cx beta = tenor_hp_make(kappa - 0.5 * rho * sigma, -rho * sigma * u);
    const tenor_hp_cx d = tenor_hp_sqrt(tenor_hp_add(tenor_hp_mul(beta, beta), tenor_hp_make(s2 * q, 0.0)));
    const tenor_hp_cx bpd = tenor_hp_add(beta, d);
    const tenor_hp_cx a = tenor_hp_div(tenor_hp_make(-q, 0.0), bpd);
    const tenor_hp_cx g = tenor_hp_div(tenor_hp_scale(a, s2), bpd);
    const tenor_hp_cx em = tenor_hp_expm1(tenor_hp_scale(d, -t));
    const tenor_hp_cx big_e = tenor_hp_scale(em, -1.0);
    const tenor_hp_cx e = tenor_hp_add(em, tenor_hp_make(1.0, 0.0));
    const tenor_hp_cx one = tenor_hp_make(1.0, 0.0);
    const tenor_hp_cx dd = tenor_hp_div(tenor_hp_mul(a, big_e), tenor_hp_sub(one, tenor_hp_mul(g, e)));
    const tenor_hp_cx l = tenor_hp_log1p(tenor_hp_div(tenor_hp_mul(g, big_e), tenor_hp_sub(one, g)));
    const tenor_hp_cx c = tenor_hp_scale(tenor_hp_sub(tenor_hp_scale(a, t), tenor_hp_scale(l, 2.0 / s2)), kappa * theta);
    return tenor_hp_add(c, tenor_hp_scale(dd, v0));
}

TENOR_DEVICE_INLINE double tenor_hp_norm_cdf(double z) { return 0.5 * TENOR_MATH(erfc)(-z * TENOR_HP_FRAC_1_SQRT_2); }

TENOR_DEVICE_INLINE bool tenor_hp_pos(double v) { return TENOR_MATH(isfinite)(v) && v > 0.0; }

// Item i of heston_price: quote j = i % quotes under parameter set i / quotes (quotes > 0), the
// arguments as the kernel's. Returns the price, NaN for an invalid quote or parameter set.
TENOR_DEVICE_INLINE double tenor_heston_price_item(tenor_u64 i, tenor_u64 quotes, TENOR_GLOBAL const double* strike,
                                                   TENOR_GLOBAL const double* forward,
                                                   TENOR_GLOBAL const double* maturity,
                                                   TENOR_GLOBAL const double* discount,
                                                   TENOR_GLOBAL const tenor_u32* is_call,
                                                   TENOR_GLOBAL const double* params, TENOR_GLOBAL const double* nodes,
                                                   TENOR_GLOBAL const double* weights, tenor_u32 nodes_count) {
    const tenor_u64 set = i / quotes, j = i % quotes;
    const double v0 = params[5 * set], kappa = params[5 * set + 1], theta = params[5 * set + 2];
    const double sigma = params[5 * set + 3], rho = params[5 * set + 4];
    const double f = forward[j], k = strike[j], t = maturity[j], df = discount[j];
    const bool call = is_call[j] == 1u;
    if (!(tenor_hp_pos(f) && tenor_hp_pos(k) && tenor_hp_pos(t) && tenor_hp_pos(df) && tenor_hp_pos(v0) &&
          tenor_hp_pos(kappa) && tenor_hp_pos(theta) && tenor_hp_pos(sigma) && rho > -1.0 && rho < 1.0)) {
        return TENOR_NAN_F64();
    }
    const double lk = TENOR_MATH(log)(k / f);
    // Expected integrated variance (the control variate's total variance).
    const double kt = kappa * t;
    const double decay = kt > 1e-8 ? -TENOR_MATH(expm1)(-kt) / kappa : t * (1.0 - 0.5 * kt);
    const double w = theta * t + (v0 - theta) * decay;
    // Transform scale.
    const double c_inf = TENOR_MATH(sqrt)(1.0 - rho * rho) * (v0 + kappa * theta * t) / sigma;
    const double u_end = TENOR_MATH(fmax)(TENOR_MATH(sqrt)(72.0 / w), 36.0 / c_inf);
    const double us = 3.0 * TENOR_MATH(sqrt)(u_end / TENOR_MATH(sqrt)(w));
    double sum = 0.0;
    for (tenor_u32 n = 0; n < nodes_count; ++n) {
        const double x = nodes[n];
        const double u = us * (1.0 - x) / x;
        const double q = u * u + 0.25;
        const tenor_hp_cx phi = tenor_hp_exp(tenor_hp_log_cf(v0, kappa, theta, sigma, rho, t, u));
        const double a = TENOR_MATH(exp)(-0.5 * w * q) - phi.re;
        const double b = -phi.im;
        double s, c;
        TENOR_SINCOS(u * lk, &s, &c);
        sum += weights[n] * ((c * a + s * b) / q) / (x * x);
    }
    const double correction = TENOR_MATH(sqrt)(f * k) * TENOR_HP_FRAC_1_PI * sum * us;
    // Out-of-the-money Black price, then the intrinsic value if in the money.
    const double sd = TENOR_MATH(sqrt)(w);
    const double d1 = TENOR_MATH(log)(f / k) / sd + 0.5 * sd;
    const double d2 = d1 - sd;
    const double bs = k >= f ? f * tenor_hp_norm_cdf(d1) - k * tenor_hp_norm_cdf(d2)
                             : k * tenor_hp_norm_cdf(-d2) - f * tenor_hp_norm_cdf(-d1);
    const double intrinsic = TENOR_MATH(fmax)(call ? f - k : k - f, 0.0);
    return TENOR_MATH(fmax)(df * (intrinsic + bs + correction), 0.0);
}

// ---------------------------------------------------------------------------------------------
// implied_vol (see its kernel.toml): Black implied volatility through the normalised Black
// function of Jaeckel, "Let's Be Rational" (Wilmott 2015), inverted by safeguarded Halley
// iterations, the same operations as kernels/src/black.rs (whose module documentation explains
// the regions and the three objectives). Status codes: 0 ok, 1 below intrinsic, 2 above the
// upper bound, 3 invalid input, 4 no convergence.
#define TENOR_IV_INV_SQRT_2PI 0.3989422804014327
#define TENOR_IV_SQRT_2PI 2.5066282746310007
#define TENOR_IV_FRAC_1_SQRT_2 0.7071067811865476
#define TENOR_IV_EPS 2.220446049250313e-16
#define TENOR_IV_ASYMPTOTIC_H (-10.0)
#define TENOR_IV_SMALL_T 0.21
#define TENOR_IV_CF_BELOW (-3.0)
#define TENOR_IV_CF_DEPTH 48u
#define TENOR_IV_MAX_ITERATIONS 100u

TENOR_DEVICE_INLINE double tenor_iv_nan() { return TENOR_NAN_F64(); }

// Standard normal distribution function erfc(-z / sqrt 2) / 2.
TENOR_DEVICE_INLINE double tenor_iv_norm_cdf(double z) { return 0.5 * TENOR_MATH(erfc)(-z * TENOR_IV_FRAC_1_SQRT_2); }

// m(z) = Phi(z) / phi(z) and 1 + z m(z) (Laplace's continued fraction below z = -3).
TENOR_DEVICE_INLINE void tenor_iv_mills(double z, double* m, double* a) {
    if (z < TENOR_IV_CF_BELOW) {
        const double y = -z;
        double c = 0.0;
        for (tenor_u32 n = TENOR_IV_CF_DEPTH; n > 0; --n) c = (double)n / (y + c);
        *m = 1.0 / (y + c);
        *a = c * *m;
    } else {
        *m = tenor_iv_norm_cdf(z) * TENOR_IV_SQRT_2PI * TENOR_MATH(exp)(0.5 * z * z);
        *a = 1.0 + z * *m;
    }
}

// Asymptotic expansion of m(h + t) - m(h - t) for h + t < -9.79.
TENOR_DEVICE double tenor_iv_asymptotic_difference(double h, double t) {
    const double ah = -h;
    const double tau = t / ah;
    const double g = 1.0 / (ah * (1.0 - tau * tau));
    double sum = 0.0, double_factorial = 1.0, g_pow = g, last = TENOR_INF_F64();
    for (tenor_u32 n = 0; n < 60u; ++n) {
        const tenor_u32 k = 2u * n + 1u;
        double s_k = 0.0, binom = (double)k, tau_pow = tau;
        for (tenor_u32 j = 1; j <= k; j += 2) {
            s_k += binom * tau_pow;
            const tenor_u32 km = j + 1u <= k ? k - j - 1u : 0u;
            binom *= (double)(k - j) * (double)km / ((double)(j + 1u) * (double)(j + 2u));
            tau_pow *= tau * tau;
        }
        const double term = double_factorial * 2.0 * s_k * g_pow;
        if (term >= last) break;
        sum += (n % 2u == 0u) ? term : -term;
        if (term <= TENOR_IV_EPS * 0.25 * TENOR_MATH(fabs)(sum)) break;
        last = term;
        double_factorial *= (double)k;
        g_pow *= g * g;
    }
    return sum;
}

// Taylor expansion in t of m(h + t) - m(h - t) for t < 0.21 (7 terms).
TENOR_DEVICE double tenor_iv_small_t_difference(double h, double t) {
    double d[14];
    tenor_iv_mills(h, &d[0], &d[1]);
    for (int k = 1; k < 13; ++k) d[k + 1] = h * d[k] + (double)k * d[k - 1];
    const double t2 = t * t;
    double acc = 0.0;
    for (int j = 6; j >= 0; --j) {
        const int k = 2 * j + 1;
        acc = d[k] + acc * t2 / ((double)(k + 1) * (double)(k + 2));
    }
    return 2.0 * t * acc;
}

// Normalised out-of-the-money Black call b(x, s), x <= 0, s >= 0.
TENOR_DEVICE double tenor_iv_black_otm(double x, double s) {
    if (s <= 0.0) return 0.0;
    x = -TENOR_MATH(fabs)(x);
    const double h = x / s;
    const double t = 0.5 * s;
    if (h + t > 0.85) {
        return TENOR_MATH(fmax)(tenor_iv_norm_cdf(h + t) * TENOR_MATH(exp)(0.5 * x) - tenor_iv_norm_cdf(h - t) * TENOR_MATH(exp)(-0.5 * x), 0.0);
    }
    const double factor = TENOR_IV_INV_SQRT_2PI * TENOR_MATH(exp)(-0.5 * (h * h + t * t));
    if (factor == 0.0) return 0.0;
    double diff;
    if (h < TENOR_IV_ASYMPTOTIC_H && h + t < TENOR_IV_ASYMPTOTIC_H + TENOR_IV_SMALL_T) {
        diff = tenor_iv_asymptotic_difference(h, t);
    } else if (t < TENOR_IV_SMALL_T) {
        diff = tenor_iv_small_t_difference(h, t);
    } else {
        double mp, mm, a;
        tenor_iv_mills(h + t, &mp, &a);
        tenor_iv_mills(h - t, &mm, &a);
        diff = mp - mm;
    }
    return TENOR_MATH(fmax)(factor * diff, 0.0);
}

// Distance of b(x, s) to its upper bound e^{x/2}: e^{x/2} Phi(-h-t) + e^{-x/2} Phi(h-t).
TENOR_DEVICE_INLINE double tenor_iv_distance_to_upper(double x, double s) {
    const double h = x / s;
    const double t = 0.5 * s;
    return TENOR_MATH(exp)(0.5 * x) * tenor_iv_norm_cdf(-h - t) + TENOR_MATH(exp)(-0.5 * x) * tenor_iv_norm_cdf(h - t);
}

// Normalised vega db/ds = exp(-(h^2 + t^2) / 2) / sqrt(2 pi).
TENOR_DEVICE_INLINE double tenor_iv_vega(double x, double s) {
    const double h = x / s;
    const double t = 0.5 * s;
    return TENOR_IV_INV_SQRT_2PI * TENOR_MATH(exp)(-0.5 * (h * h + t * t));
}

// Total implied volatility s of a normalised out-of-the-money price beta = b(x, s); returns the
// status code and writes s when it is 0.
TENOR_DEVICE tenor_u32 tenor_iv_total_vol_otm(double beta, double x, double* out) {
    x = -TENOR_MATH(fabs)(x);
    if (TENOR_MATH(isnan)(beta) || TENOR_MATH(isnan)(x)) return 3u;
    if (beta <= 0.0) return 1u;
    const double bmax = TENOR_MATH(exp)(0.5 * x);
    if (beta >= bmax) return 2u;
    const double sc = TENOR_MATH(sqrt)(2.0 * TENOR_MATH(fabs)(x));
    const double bc = tenor_iv_black_otm(x, sc);
    const double upper_target = bmax - beta;
    // Objective: 0 = ln b, 1 = b, 2 = ln(bmax - b).
    const int objective = beta < bc ? 0 : (upper_target < 0.5 * (bmax - bc) ? 2 : 1);
    const double inf = TENOR_INF_F64();
    double lo = 0.0, hi = inf;
    double s = sc > 0.0 ? sc : TENOR_IV_SQRT_2PI * beta;
    if (objective == 0) {
        const double q = TENOR_MATH(fabs)(x) / TENOR_MATH(sqrt)(-2.0 * TENOR_MATH(log)(beta));
        const double qc = TENOR_MATH(fabs)(x) / TENOR_MATH(sqrt)(-2.0 * TENOR_MATH(log)(bc));
        const double g = q + (sc - qc) * (q / qc) * (q / qc);
        if (TENOR_MATH(isfinite)(g) && g > 0.0 && g < sc) s = g;
    }
    for (tenor_u32 iter = 0; iter < TENOR_IV_MAX_ITERATIONS; ++iter) {
        const double b = tenor_iv_black_otm(x, s);
        if (b == beta) {
            *out = s;
            return 0u;
        }
        if (b < beta) lo = TENOR_MATH(fmax)(lo, s);
        else hi = TENOR_MATH(fmin)(hi, s);
        const double v = tenor_iv_vega(x, s);
        const double curvature = x * x / (s * s * s) - 0.25 * s;  // b'' / b'
        double f, f1, f2;
        if (objective == 0 && b > 0.0) {
            const double r = v / b;
            f = TENOR_MATH(log)(b / beta);
            f1 = r;
            f2 = r * curvature - r * r;
        } else if (objective == 2) {
            const double u = tenor_iv_distance_to_upper(x, s);
            if (u > 0.0) {
                const double r = v / u;
                f = TENOR_MATH(log)(u / upper_target);
                f1 = -r;
                f2 = -r * curvature - r * r;
            } else {
                f = b - beta;
                f1 = v;
                f2 = v * curvature;
            }
        } else {
            f = b - beta;
            f1 = v;
            f2 = v * curvature;
        }
        double next = tenor_iv_nan();
        if (f1 != 0.0 && TENOR_MATH(isfinite)(f1) && TENOR_MATH(isfinite)(f)) {
            const double newton = -f / f1;
            const double denom = 1.0 + 0.5 * newton * f2 / f1;
            const bool halley = denom > 0.5 && TENOR_MATH(isfinite)(denom);
            const double step = halley ? newton / denom : newton;
            next = s + step;
            const double done = halley ? 1e-7 * s : 2.0 * TENOR_IV_EPS * s;
            if (TENOR_MATH(fabs)(step) <= done && next > lo && next < hi) {
                *out = next;
                return 0u;
            }
        }
        if (!(next > lo && next < hi)) next = TENOR_MATH(isfinite)(hi) ? 0.5 * (lo + hi) : 2.0 * TENOR_MATH(fmax)(TENOR_MATH(fmax)(s, lo), 1e-3);
        const double step = next - s;
        s = next;
        if (TENOR_MATH(fabs)(step) <= 2.0 * TENOR_IV_EPS * s || (TENOR_MATH(isfinite)(hi) && hi - lo <= 2.0 * TENOR_IV_EPS * hi)) {
            *out = s;
            return 0u;
        }
    }
    return 4u;
}

TENOR_DEVICE_INLINE bool tenor_iv_valid(double v) { return TENOR_MATH(isfinite)(v) && v > 0.0; }

// Item i of implied_vol, the arguments as the kernel's: writes vol[i] (NaN unless solved) and
// status[i].
TENOR_DEVICE_INLINE void tenor_implied_vol_item(tenor_u64 i, TENOR_GLOBAL const double* price,
                                                TENOR_GLOBAL const double* forward, TENOR_GLOBAL const double* strike,
                                                TENOR_GLOBAL const double* maturity,
                                                TENOR_GLOBAL const double* discount,
                                                TENOR_GLOBAL const tenor_u32* is_call, TENOR_GLOBAL double* vol,
                                                TENOR_GLOBAL tenor_u32* status) {
    const double d = discount[i];
    const double p = tenor_iv_valid(d) ? price[i] / d : tenor_iv_nan();
    const double f = forward[i], k = strike[i], t = maturity[i];
    const bool call = is_call[i] == 1u;
    double v = tenor_iv_nan();
    tenor_u32 st;
    if (!(tenor_iv_valid(f) && tenor_iv_valid(k) && tenor_iv_valid(t) && TENOR_MATH(isfinite)(p))) {
        st = 3u;
    } else {
        const double intrinsic = call ? TENOR_MATH(fmax)(f - k, 0.0) : TENOR_MATH(fmax)(k - f, 0.0);
        const double upper = call ? f : k;
        if (p >= upper) {
            st = 2u;
        } else if (p <= intrinsic) {
            st = 1u;
        } else {
            const double beta = (p - intrinsic) / TENOR_MATH(sqrt)(f * k);
            double s = 0.0;
            st = tenor_iv_total_vol_otm(beta, TENOR_MATH(log)(f / k), &s);
            if (st == 0u) v = s / TENOR_MATH(sqrt)(t);
        }
    }
    vol[i] = v;
    status[i] = st;
}

// ---------------------------------------------------------------------------------------------
// reduce_sum_sumsq (see its kernel.toml): partials[2b] = sum of x over block b's items,
// partials[2b + 1] = sum of x^2.
TENOR_DEVICE_INLINE void tenor_reduce_sum_sumsq(TENOR_GLOBAL const double* __restrict__ x,
                                                TENOR_GLOBAL double* __restrict__ partials,
                                                tenor_u64 n TENOR_SCRATCH_PARAM) {
    double v[2] = {0.0, 0.0};
    TENOR_FOR_ITEMS(i, n) {
        const double a = x[i];
        v[0] += a;
        v[1] += a * a;
    }
    TENOR_BLOCK_SUMS(v, 2, partials);
}

// ---------------------------------------------------------------------------------------------
// heston_qe, heston_qe_mc and heston_qe_batch (see their kernel.toml): Heston paths by Andersen's
// (2008) quadratic-exponential scheme with martingale correction, "Simple and efficient
// simulation of the Heston stochastic volatility model", J. Comp. Finance 11(3), sections
// 3.2.4, 4.2 and 4.2.1; the same operations as kernels/heston_qe/cpu.rs (QeStep). The
// per-launch constants of the step, then one step of one path.
struct tenor_heston_qe_consts {
    double e, s2a, s2b, k1, k2, k3, k4, a_coef, k0_plain, theta, drift_dt;
    tenor_u32 key0, key1;
};
typedef struct tenor_heston_qe_consts tenor_heston_qe_consts;

TENOR_DEVICE_INLINE tenor_heston_qe_consts tenor_heston_qe_make(tenor_u64 seed, double drift_dt, double dt, double kappa,
                                                                double theta, double sigma, double rho) {
    tenor_heston_qe_consts c;
    c.e = TENOR_MATH(exp)(-kappa * dt);
    c.s2a = sigma * sigma * c.e * (1.0 - c.e) / kappa;
    c.s2b = theta * sigma * sigma * (1.0 - c.e) * (1.0 - c.e) / (2.0 * kappa);
    c.k1 = 0.5 * dt * (kappa * rho / sigma - 0.5) - rho / sigma;
    c.k2 = 0.5 * dt * (kappa * rho / sigma - 0.5) + rho / sigma;
    c.k3 = 0.5 * dt * (1.0 - rho * rho);
    c.k4 = c.k3;
    c.a_coef = c.k2 + 0.5 * c.k4;
    c.k0_plain = -rho * kappa * theta * dt / sigma;
    c.theta = theta;
    c.drift_dt = drift_dt;
    c.key0 = (tenor_u32)seed;
    c.key1 = (tenor_u32)(seed >> 32);
    return c;
}

// Step s of path p from (v, x = ln S): zx, zv the step's normals (negated for the antithetic
// path), and in the exponential branch the uniform u of counter (s, 1, p) (1 - u for the
// antithetic path, flip != 0).
TENOR_DEVICE_INLINE void tenor_heston_qe_step(const tenor_heston_qe_consts* c, double* v, double* x, double zx,
                                              double zv, tenor_u64 p, tenor_u32 s, tenor_u32 flip) {
    const double vc = *v;
    const double m = c->theta + (vc - c->theta) * c->e;
    const double s2 = vc * c->s2a + c->s2b;
    const double psi = s2 / (m * m);
    double vn, k0;
    if (psi <= 1.5) {
        const double r = 2.0 / psi;
        const double b2 = r - 1.0 + TENOR_MATH(sqrt)(r) * TENOR_MATH(sqrt)(r - 1.0);
        const double a = m / (1.0 + b2);
        const double q = TENOR_MATH(sqrt)(b2) + zv;
        vn = a * (q * q);
        k0 = 2.0 * c->a_coef * a < 1.0 ? -c->a_coef * b2 * a / (1.0 - 2.0 * c->a_coef * a) +
                                             0.5 * TENOR_MATH(log)(1.0 - 2.0 * c->a_coef * a) -
                                             (c->k1 + 0.5 * c->k3) * vc
                                       : c->k0_plain;
    } else {
        const double p0 = (psi - 1.0) / (psi + 1.0);
        const double beta = (1.0 - p0) / m;
        // Counter word 1 = 1: disjoint from the normals' counters (word 1 = 0).
        tenor_u32x4 ctr;
        ctr.x = s; ctr.y = 1u; ctr.z = (tenor_u32)p; ctr.w = (tenor_u32)(p >> 32);
        const tenor_u32x4 w = tenor_philox4x32_10(ctr, c->key0, c->key1);
        const double u0 = tenor_uniform_f64(w.x, w.y);
        const double u = flip != 0u ? 1.0 - u0 : u0;  // exact: u0 is a multiple of 2^-53 in (0, 1)
        vn = u <= p0 ? 0.0 : TENOR_MATH(log)((1.0 - p0) / (1.0 - u)) / beta;
        k0 = c->a_coef < beta ? -TENOR_MATH(log)(p0 + beta * (1.0 - p0) / (beta - c->a_coef)) - (c->k1 + 0.5 * c->k3) * vc
                              : c->k0_plain;
    }
    *x += c->drift_dt + k0 + c->k1 * vc + c->k2 * vn + TENOR_MATH(sqrt)(c->k3 * vc + c->k4 * vn) * zx;
    *v = vn;
}

// heston_qe: terminal spots, one item per path. One function for the whole block, as
// tenor_mc_asian.
TENOR_DEVICE_INLINE void tenor_heston_qe(TENOR_GLOBAL double* __restrict__ out, tenor_u64 seed, tenor_u64 paths, tenor_u32 steps,
                                         double spot, double drift_dt, double dt, double v0, double kappa,
                                         double theta, double sigma, double rho) {
    const tenor_heston_qe_consts c = tenor_heston_qe_make(seed, drift_dt, dt, kappa, theta, sigma, rho);
    const double x0 = TENOR_MATH(log)(spot);
    TENOR_FOR_ITEMS(p, paths) {
        double v = v0, x = x0;
        for (tenor_u32 s = 0; s < steps; ++s) {
            double zx, zv;
            tenor_normal_pair_f64(seed, p, s, &zx, &zv);
            tenor_heston_qe_step(&c, &v, &x, zx, zv, p, s, 0u);
        }
        out[p] = TENOR_MATH(exp)(x);
    }
}

// heston_qe_mc (see its kernel.toml): fused antithetic QE Monte Carlo of a European option;
// pair p is heston_qe's path p and its antithetic path (normals negated, uniforms 1 - u), Y =
// discount (payoff(S_up) + payoff(S_down)) / 2, the block sums of Y and Y^2. Block `blk` of the
// product's own numbering, sums to partials[2 blk], partials[2 blk + 1] (as
// tenor_mc_barrier_block): heston_qe_mc passes its launch's block, heston_qe_batch the block
// within the product.
TENOR_DEVICE_INLINE void tenor_heston_qe_block(TENOR_GLOBAL double* __restrict__ partials, tenor_u64 blk, tenor_u64 seed,
                                               tenor_u64 pairs, tenor_u32 steps, double spot, double strike,
                                               tenor_u32 is_call, double drift_dt, double dt, double v0, double kappa,
                                               double theta, double sigma, double rho,
                                               double discount TENOR_SCRATCH_PARAM) {
    const tenor_heston_qe_consts c = tenor_heston_qe_make(seed, drift_dt, dt, kappa, theta, sigma, rho);
    const double x0 = TENOR_MATH(log)(spot);
    const double w = is_call != 0u ? 1.0 : -1.0;
    const double half_discount = 0.5 * discount;
    double acc[2] = {0.0, 0.0};
    TENOR_FOR_ITEMS_IN(p, pairs, blk) {
        double vu = v0, xu = x0, vd = v0, xd = x0;
        for (tenor_u32 s = 0; s < steps; ++s) {
            double zx, zv;
            tenor_normal_pair_f64(seed, p, s, &zx, &zv);
            tenor_heston_qe_step(&c, &vu, &xu, zx, zv, p, s, 0u);
            tenor_heston_qe_step(&c, &vd, &xd, -zx, -zv, p, s, 1u);
        }
        const double y = half_discount * (TENOR_MATH(fmax)(w * (TENOR_MATH(exp)(xu) - strike), 0.0) +
                                          TENOR_MATH(fmax)(w * (TENOR_MATH(exp)(xd) - strike), 0.0));
        acc[0] += y;
        acc[1] += y * y;
    }
    TENOR_BLOCK_SUMS_IN(acc, 2, partials, blk);
}

// heston_qe_mc: tenor_heston_qe_block for the launch's own block.
TENOR_DEVICE_INLINE void tenor_heston_qe_mc(TENOR_GLOBAL double* __restrict__ partials, tenor_u64 seed, tenor_u64 pairs,
                                            tenor_u32 steps, double spot, double strike, tenor_u32 is_call,
                                            double drift_dt, double dt, double v0, double kappa, double theta,
                                            double sigma, double rho, double discount TENOR_SCRATCH_PARAM) {
    tenor_heston_qe_block(partials, TENOR_BLOCK_INDEX(), seed, pairs, steps, spot, strike, is_call, drift_dt, dt, v0,
                          kappa, theta, sigma, rho, discount TENOR_SCRATCH_ARG);
}

// heston_qe_batch: heston_qe_mc for `products` products in one launch, product i's scalars from
// element i of each column; each product's blocks are tenor_heston_qe_block's for it alone.
TENOR_DEVICE_INLINE void tenor_heston_qe_batch(
    TENOR_GLOBAL double* __restrict__ partials, TENOR_GLOBAL const tenor_u32* __restrict__ steps,
    TENOR_GLOBAL const double* __restrict__ spot, TENOR_GLOBAL const double* __restrict__ strike,
    TENOR_GLOBAL const tenor_u32* __restrict__ is_call, TENOR_GLOBAL const double* __restrict__ drift_dt,
    TENOR_GLOBAL const double* __restrict__ dt, TENOR_GLOBAL const double* __restrict__ v0,
    TENOR_GLOBAL const double* __restrict__ kappa, TENOR_GLOBAL const double* __restrict__ theta,
    TENOR_GLOBAL const double* __restrict__ sigma, TENOR_GLOBAL const double* __restrict__ rho,
    TENOR_GLOBAL const double* __restrict__ discount, tenor_u32 products, tenor_u64 seed, tenor_u64 pairs,
    tenor_u64 items TENOR_SCRATCH_PARAM) {
    const tenor_u64 per_product = tenor_batch_blocks(pairs), b = TENOR_BLOCK_INDEX(), i = b / per_product;
    (void)items;
    if (i >= products) return;
    tenor_heston_qe_block(partials + 2 * i * per_product, b % per_product, seed, pairs, steps[i], spot[i], strike[i],
                          is_call[i], drift_dt[i], dt[i], v0[i], kappa[i], theta[i], sigma[i], rho[i],
                          discount[i] TENOR_SCRATCH_ARG);
}

// ---------------------------------------------------------------------------------------------
// lsm_paths, lsm_basis, lsm_exercise (see their kernel.toml): Longstaff-Schwartz (2001) on GPU
// backends, one function per kernel for the whole block, as tenor_mc_asian; lsm_paths_batch,
// lsm_exercise_batch and lsm_normal_batch (the book's batches over products) call the same
// per-path code on each product's block of the product-major buffers, so a product's values
// are bitwise those of the single kernels launched for it alone. The products and sums are
// spelled out with TENOR_MUL_ADD so that no compiler contracts them differently in the single
// and the batch kernels (ADR 0009's note on ptxas).
//
// Antithetic step-major GBM path p: path p < paths / 2 uses normal_f64(seed, p, s), path
// p >= paths / 2 the negated normals of path p - paths / 2; log S(t_0) = x0.
TENOR_DEVICE_INLINE void tenor_lsm_path(TENOR_GLOBAL double* __restrict__ out, tenor_u64 p, tenor_u64 seed,
                                        tenor_u64 paths, tenor_u32 steps, double x0, double drift_dt,
                                        double vol_sqrt_dt) {
    const tenor_u64 half_paths = paths / 2;
    const bool up = p < half_paths;
    const tenor_u64 source = up ? p : p - half_paths;
    const double v = vol_sqrt_dt * (up ? 1.0 : -1.0);
    double x = x0;
    for (tenor_u32 s = 0; s < steps; s += 2) {
        double z0, z1;
        tenor_normal_pair_f64(seed, source, s >> 1, &z0, &z1);
        x += TENOR_MUL_ADD(v, z0, drift_dt);
        out[(tenor_u64)s * paths + p] = TENOR_MATH(exp)(x);
        if (s + 1 < steps) {
            x += TENOR_MUL_ADD(v, z1, drift_dt);
            out[(tenor_u64)(s + 1) * paths + p] = TENOR_MATH(exp)(x);
        }
    }
}

TENOR_DEVICE_INLINE void tenor_lsm_paths(TENOR_GLOBAL double* __restrict__ out, tenor_u64 seed, tenor_u64 paths, tenor_u32 steps,
                                         double spot, double drift_dt, double vol_sqrt_dt) {
    const double x0 = TENOR_MATH(log)(spot);
    TENOR_FOR_ITEMS(p, paths) { tenor_lsm_path(out, p, seed, paths, steps, x0, drift_dt, vol_sqrt_dt); }
}

// lsm_paths_batch: item g is path g mod paths of product g / paths, written to the product's
// steps x paths block of out.
TENOR_DEVICE_INLINE void tenor_lsm_paths_batch(TENOR_GLOBAL double* __restrict__ out, TENOR_GLOBAL const double* __restrict__ spot,
                                               TENOR_GLOBAL const double* __restrict__ drift_dt,
                                               TENOR_GLOBAL const double* __restrict__ vol_sqrt_dt, tenor_u32 products,
                                               tenor_u64 seed, tenor_u64 paths, tenor_u32 steps, tenor_u64 items) {
    if (paths == 0) return;
    TENOR_FOR_ITEM_PER_THREAD(g, items) {
        const tenor_u64 i = g / paths;
        if (i < (tenor_u64)products) {
            tenor_lsm_path(out + i * (tenor_u64)steps * paths, g % paths, seed, paths, steps, TENOR_MATH(log)(spot[i]),
                           drift_dt[i], vol_sqrt_dt[i]);
        }
    }
}

// Regression rows at exercise date `step`: column j < nbasis holds L_j(S / strike) of the
// in-the-money paths, column nbasis df * cash[p]; 0 out of the money.
TENOR_DEVICE_INLINE void tenor_lsm_basis(TENOR_GLOBAL const double* __restrict__ spots, TENOR_GLOBAL const TENOR_GLOBAL double* __restrict__ cash,
                                         TENOR_GLOBAL double* __restrict__ design, tenor_u64 paths, tenor_u32 step,
                                         tenor_u32 nbasis, double strike, double sign, double df) {
    TENOR_FOR_ITEMS(p, paths) {
        const double s = spots[(tenor_u64)step * paths + p];
        const double h = TENOR_MATH(fmax)(sign * (s - strike), 0.0);
        const double x = s / strike;
        const bool itm = h > 0.0;
        for (tenor_u32 j = 0; j < nbasis; ++j) {
            design[(tenor_u64)j * paths + p] = itm ? tenor_laguerre(j, x) : 0.0;
        }
        design[(tenor_u64)nbasis * paths + p] = itm ? df * cash[p] : 0.0;
    }
}

// lsm_normal_batch: item g is chunk g mod C (C = ceil(paths / chunk)) of product g / C; its
// partials are the column-major [X^T X | X^T y] of the chunk's in-the-money rows, accumulated in
// path order (kernels/lsm_normal_batch/cpu.rs).
#define TENOR_LSM_MAX_BASIS 8u
TENOR_DEVICE_INLINE void tenor_lsm_normal_batch(TENOR_GLOBAL double* __restrict__ partials, TENOR_GLOBAL const double* __restrict__ spots,
                                                TENOR_GLOBAL const double* __restrict__ cash, TENOR_GLOBAL const double* __restrict__ strike,
                                                TENOR_GLOBAL const double* __restrict__ sign, TENOR_GLOBAL const double* __restrict__ df,
                                                tenor_u32 products, tenor_u64 paths, tenor_u32 steps, tenor_u32 step,
                                                tenor_u32 nbasis, tenor_u64 chunk, tenor_u64 items) {
    if (paths == 0 || chunk == 0 || step >= steps || nbasis == 0 || nbasis > TENOR_LSM_MAX_BASIS) return;
    const tenor_u64 chunks = (paths + chunk - 1) / chunk;
    const tenor_u32 width = nbasis * (nbasis + 1);
    TENOR_FOR_ITEM_PER_THREAD(g, items) {
        const tenor_u64 i = g / chunks;
        if (i < (tenor_u64)products) {
            const tenor_u64 c = g % chunks;
            double acc[TENOR_LSM_MAX_BASIS * (TENOR_LSM_MAX_BASIS + 1u)];
            double row[TENOR_LSM_MAX_BASIS + 1u];
            for (tenor_u32 e = 0; e < width; ++e) acc[e] = 0.0;
            TENOR_GLOBAL const double* s_i = spots + i * (tenor_u64)steps * paths + (tenor_u64)step * paths;
            TENOR_GLOBAL const double* c_i = cash + i * paths;
            const double k = strike[i], w = sign[i], d = df[i];
            const tenor_u64 end = paths < (c + 1) * chunk ? paths : (c + 1) * chunk;
            for (tenor_u64 p = c * chunk; p < end; ++p) {
                const double s = s_i[p];
                const double h = TENOR_MATH(fmax)(w * (s - k), 0.0);
                if (h > 0.0) {
                    const double x = s / k;
                    for (tenor_u32 j = 0; j < nbasis; ++j) row[j] = tenor_laguerre(j, x);
                    row[nbasis] = d * c_i[p];
                    for (tenor_u32 col = 0; col <= nbasis; ++col) {
                        for (tenor_u32 r = 0; r < nbasis; ++r) {
                            acc[col * nbasis + r] = TENOR_MUL_ADD(row[r], row[col], acc[col * nbasis + r]);
                        }
                    }
                }
            }
            for (tenor_u32 e = 0; e < width; ++e) partials[g * width + e] = acc[e];
        }
    }
}

// Exercise decision of path p at exercise date `step`: an in-the-money path exercises when its
// payoff h exceeds the regressed continuation value (cash[p] = h); otherwise its cash flow is
// discounted one date back (cash[p] *= df).
TENOR_DEVICE_INLINE void tenor_lsm_exercise_path(TENOR_GLOBAL const double* __restrict__ spots, TENOR_GLOBAL double* __restrict__ cash,
                                                 TENOR_GLOBAL const double* __restrict__ coef, tenor_u64 p, tenor_u64 paths,
                                                 tenor_u32 step, tenor_u32 nbasis, double strike, double sign, double df) {
    TENOR_GLOBAL const double* c = coef + (tenor_u64)step * nbasis;
    const double s = spots[(tenor_u64)step * paths + p];
    const double h = TENOR_MATH(fmax)(sign * (s - strike), 0.0);
    if (h > 0.0) {
        const double x = s / strike;
        double cont = 0.0;
        for (tenor_u32 j = 0; j < nbasis; ++j) cont = TENOR_MUL_ADD(c[j], tenor_laguerre(j, x), cont);
        if (h > cont) {
            cash[p] = h;
            return;
        }
    }
    cash[p] *= df;
}

TENOR_DEVICE_INLINE void tenor_lsm_exercise(TENOR_GLOBAL const double* __restrict__ spots, TENOR_GLOBAL double* __restrict__ cash,
                                            TENOR_GLOBAL const double* __restrict__ coef, tenor_u64 paths, tenor_u32 step,
                                            tenor_u32 nbasis, double strike, double sign, double df) {
    TENOR_FOR_ITEMS(p, paths) { tenor_lsm_exercise_path(spots, cash, coef, p, paths, step, nbasis, strike, sign, df); }
}

// lsm_exercise_batch: item g is path g mod paths of product g / paths, on the product's blocks of
// spots (steps x paths), cash (paths) and coef (steps x nbasis).
TENOR_DEVICE_INLINE void tenor_lsm_exercise_batch(TENOR_GLOBAL const double* __restrict__ spots, TENOR_GLOBAL double* __restrict__ cash,
                                                  TENOR_GLOBAL const double* __restrict__ coef, TENOR_GLOBAL const double* __restrict__ strike,
                                                  TENOR_GLOBAL const double* __restrict__ sign, TENOR_GLOBAL const double* __restrict__ df,
                                                  tenor_u32 products, tenor_u64 paths, tenor_u32 steps, tenor_u32 step,
                                                  tenor_u32 nbasis, tenor_u64 items) {
    if (paths == 0 || step >= steps) return;
    TENOR_FOR_ITEM_PER_THREAD(g, items) {
        const tenor_u64 i = g / paths;
        if (i < (tenor_u64)products) {
            tenor_lsm_exercise_path(spots + i * (tenor_u64)steps * paths, cash + i * paths,
                                    coef + i * (tenor_u64)steps * nbasis, g % paths, paths, step, nbasis, strike[i],
                                    sign[i], df[i]);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Kernels of one CUDA thread per item (manifest block 256): gbm_paths, philox_normals,
// payoff_european, payoff_asian, payoff_barrier, each one function for the whole block, as
// tenor_mc_asian.

// gbm_paths (see its kernel.toml): step-major GBM paths in log space, out[s * paths + p] =
// exp(x_{s+1}), the first interval's drift and volatility separate.
TENOR_DEVICE_INLINE void tenor_gbm_paths(TENOR_GLOBAL double* __restrict__ out, tenor_u64 seed, tenor_u64 paths, tenor_u32 steps,
                                         double spot, double drift_first, double vol_first, double drift_dt,
                                         double vol_sqrt_dt) {
    TENOR_FOR_ITEM_PER_THREAD(p, paths) {
        double x = TENOR_MATH(log)(spot);
        for (tenor_u32 s = 0; s < steps; s += 2) {
            double z0, z1;
            tenor_normal_pair_f64(seed, p, s >> 1, &z0, &z1);
            x += (s == 0) ? drift_first + vol_first * z0 : drift_dt + vol_sqrt_dt * z0;
            out[(tenor_u64)s * paths + p] = TENOR_MATH(exp)(x);
            if (s + 1 < steps) {
                x += drift_dt + vol_sqrt_dt * z1;
                out[(tenor_u64)(s + 1) * paths + p] = TENOR_MATH(exp)(x);
            }
        }
    }
}

// philox_normals (see its kernel.toml): out[s * paths + p] = normal_f64(seed, path_offset + p,
// s), s < steps.
TENOR_DEVICE_INLINE void tenor_philox_normals(TENOR_GLOBAL double* __restrict__ out, tenor_u64 seed, tenor_u64 path_offset,
                                              tenor_u64 paths, tenor_u32 steps) {
    TENOR_FOR_ITEM_PER_THREAD(p, paths) {
        for (tenor_u32 s = 0; s < steps; s += 2) {
            double z0, z1;
            tenor_normal_pair_f64(seed, path_offset + p, s >> 1, &z0, &z1);
            out[(tenor_u64)s * paths + p] = z0;
            if (s + 1 < steps) out[(tenor_u64)(s + 1) * paths + p] = z1;
        }
    }
}

// payoff_european (see its kernel.toml): out[p] = discount * max(w (S_T - strike), 0),
// S_T = paths_in[(steps - 1) * paths + p].
TENOR_DEVICE_INLINE void tenor_payoff_european(TENOR_GLOBAL const double* __restrict__ paths_in, TENOR_GLOBAL double* __restrict__ out,
                                               tenor_u64 paths, tenor_u32 steps, double strike, tenor_u32 is_call,
                                               double discount) {
    TENOR_FOR_ITEM_PER_THREAD(p, paths) {
        const double w = is_call != 0u ? 1.0 : -1.0;
        const tenor_u64 last = (tenor_u64)(steps > 0u ? steps - 1u : 0u) * paths;
        out[p] = discount * TENOR_MATH(fmax)(w * (paths_in[last + p] - strike), 0.0);
    }
}

// payoff_asian (see its kernel.toml): discounted arithmetic- and geometric-average fixed-strike
// payoffs of each stored path.
TENOR_DEVICE_INLINE void tenor_payoff_asian(TENOR_GLOBAL const double* __restrict__ paths_in, TENOR_GLOBAL double* __restrict__ out_arith,
                                            TENOR_GLOBAL double* __restrict__ out_geo, tenor_u64 paths, tenor_u32 steps,
                                            double spot, tenor_u32 spot_fixing, double strike, tenor_u32 is_call,
                                            double discount) {
    TENOR_FOR_ITEM_PER_THREAD(p, paths) {
        const double w = is_call != 0u ? 1.0 : -1.0;
        const double n = (double)(steps + (spot_fixing != 0u ? 1u : 0u));
        double sum = 0.0, sum_log = 0.0;
        if (spot_fixing != 0u) {
            sum = spot;
            sum_log = TENOR_MATH(log)(spot);
        }
        for (tenor_u32 k = 0; k < steps; ++k) {
            const double s = paths_in[(tenor_u64)k * paths + p];
            sum += s;
            sum_log += TENOR_MATH(log)(s);
        }
        const double a = sum / n, g = TENOR_MATH(exp)(sum_log / n);
        out_arith[p] = discount * TENOR_MATH(fmax)(w * (a - strike), 0.0);
        out_geo[p] = discount * TENOR_MATH(fmax)(w * (g - strike), 0.0);
    }
}

// payoff_barrier (see its kernel.toml): the discounted barrier value of each stored path.
TENOR_DEVICE_INLINE void tenor_payoff_barrier(TENOR_GLOBAL const double* __restrict__ paths_in, TENOR_GLOBAL double* __restrict__ out,
                                              tenor_u64 paths, tenor_u32 steps, double spot, double strike,
                                              double barrier, double rebate, tenor_u32 is_call, tenor_u32 kind,
                                              tenor_u32 continuous, double vol_sqrt_dt, double rate_dt,
                                              double discount) {
    TENOR_FOR_ITEM_PER_THREAD(p, paths) {
        const tenor_barrier_params prm =
            tenor_barrier_make(strike, barrier, rebate, is_call, kind, continuous, vol_sqrt_dt, rate_dt, discount);
        tenor_barrier_path path = tenor_barrier_start(TENOR_MATH(log)(spot));
        for (tenor_u32 k = 0; k < steps; ++k) {
            tenor_barrier_step(&prm, &path, k, TENOR_MATH(log)(paths_in[(tenor_u64)k * paths + p]));
        }
        out[p] = tenor_barrier_value(&prm, &path);
    }
}
