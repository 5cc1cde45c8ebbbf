// Tenor's device code written once for CUDA and SYCL: `tenor_kernels::prelude` appends this file
// to kernels/common/prelude.cuh and to kernels/common/prelude.hpp, so it is part of every CUDA
// and SYCL translation unit. It is written in the common subset of CUDA C++ and SYCL C++ with
// the spellings each of those preludes defines before it:
//
//   TENOR_DEVICE_INLINE   an inlined device function (__device__ __forceinline__ / static inline)
//   TENOR_DEVICE          a device function (__device__ / static)
//   TENOR_MATH(f)         the fp64 math function f (CUDA Math API f / sycl::f)
//   TENOR_NAN_F64()       the quiet NaN 0x7FF8000000000000
//   TENOR_SINCOS(x, s, c) *s = sin x, *c = cos x (CUDA sincos / sycl::sin and sycl::cos)
//   tenor_u32, tenor_u64  32- and 64-bit unsigned integers
//
// The launch-shape glue (thread or work-item index, the kernel's arguments) stays in each
// kernel's cuda.cu and sycl.cpp; the per-item numerical code below is what both call, so the two
// backends run the same operations in the same order (each with its own math library).

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
TENOR_DEVICE_INLINE bool tenor_curve_grid(const double* tenors, tenor_u32 m, double* times, double* logs) {
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
TENOR_DEVICE_INLINE void tenor_curve_build_one(const double* par, double* log_df, tenor_u64 n, tenor_u64 c,
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
TENOR_DEVICE_INLINE double tenor_heston_price_item(tenor_u64 i, tenor_u64 quotes, const double* strike,
                                                   const double* forward, const double* maturity,
                                                   const double* discount, const tenor_u32* is_call,
                                                   const double* params, const double* nodes, const double* weights,
                                                   tenor_u32 nodes_count) {
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
