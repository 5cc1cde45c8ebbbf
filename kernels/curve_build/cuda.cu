// curve_build (see kernel.toml): one par-yield bootstrap per thread, the same operations in the
// same order as kernels/src/curve.rs (whose module documentation gives the method: bills on the
// quoted basis, par bonds solved for ln D(T) by Newton's method through log-linear
// interpolation, Hagan and West 2006). Tenor-major layout: thread c reads par[k * n + c] and
// writes log_df[k * n + c], so a warp's accesses at each tenor are one contiguous segment.
#define TENOR_CURVE_MAX_TENORS 32u
#define TENOR_CURVE_NEWTON_TOL 1e-12
#define TENOR_CURVE_NEWTON_MAX 64u
#define TENOR_CURVE_BILL_EPS 1e-12
#define TENOR_CURVE_COUPON_EPS 1e-9

__device__ __forceinline__ double tenor_curve_nan() { return __longlong_as_double(0x7FF8000000000000ll); }

// 2 ln(1 + y/2): a bond-equivalent yield as a continuously compounded rate.
__device__ __forceinline__ double tenor_curve_bey(double y) { return 2.0 * log1p(0.5 * y); }

// Coupon i (0-based, date order) of a par bond of `coupons` coupons to `tenor` at coupon y.
__device__ __forceinline__ double tenor_curve_time(double tenor, u32 coupons, u32 i) {
    return tenor - 0.5 * (double)(coupons - 1u - i);
}
__device__ __forceinline__ double tenor_curve_cash(double tenor, double y, u32 coupons, u32 i) {
    const double accrual = i == 0u ? fmin(tenor_curve_time(tenor, coupons, 0u), 0.5) : 0.5;
    return y * accrual + (i + 1u == coupons ? 1.0 : 0.0);
}

// ln D(tenor) of a par bond at y on the nodes (times[0..=last], logs[0..=last]); NaN if Newton
// does not stop.
__device__ double tenor_curve_par_bond(const double* times, const double* logs, u32 last, double tenor, double y) {
    const double t_prev = times[last], l_prev = logs[last];
    u32 coupons = 0u;
    while (tenor - 0.5 * (double)coupons > TENOR_CURVE_COUPON_EPS) ++coupons;
    double known = 0.0;
    u32 first = 0u, seg = 1u;
    while (first < coupons && tenor_curve_time(tenor, coupons, first) <= t_prev) {
        const double t = tenor_curve_time(tenor, coupons, first);
        while (times[seg] < t) ++seg;
        const double t0 = times[seg - 1u], t1 = times[seg], l0 = logs[seg - 1u], l1 = logs[seg];
        known += tenor_curve_cash(tenor, y, coupons, first) * exp(l0 + (l1 - l0) * (t - t0) / (t1 - t0));
        ++first;
    }
    double z = -tenor * tenor_curve_bey(y);
    for (u32 it = 0u; it < TENOR_CURVE_NEWTON_MAX; ++it) {
        double price = known, deriv = 0.0;
        for (u32 i = first; i < coupons; ++i) {
            const double w = (tenor_curve_time(tenor, coupons, i) - t_prev) / (tenor - t_prev);
            const double d = exp(l_prev + (z - l_prev) * w);
            const double cf = tenor_curve_cash(tenor, y, coupons, i);
            price += cf * d;
            deriv += cf * d * w;
        }
        const double step = (price - 1.0) / deriv;
        z -= step;
        if (fabs(step) <= TENOR_CURVE_NEWTON_TOL) return z;
        if (!isfinite(z)) break;
    }
    return tenor_curve_nan();
}

extern "C" __global__ void curve_build(const double* __restrict__ par, const double* __restrict__ tenors,
                                       double* __restrict__ log_df, u64 n, u32 m) {
    bool valid = m >= 1u && m <= TENOR_CURVE_MAX_TENORS;
    double times[TENOR_CURVE_MAX_TENORS + 1u];
    double logs[TENOR_CURVE_MAX_TENORS + 1u];
    times[0] = 0.0;
    logs[0] = 0.0;
    if (valid) {
        for (u32 k = 0u; k < m; ++k) {
            const double t = tenors[k];
            if (!(isfinite(t) && t > times[k])) valid = false;
            times[k + 1u] = t;
        }
    }
    TENOR_FOR_ITEMS(c, n) {
        bool failed = !valid;
        for (u32 k = 0u; k < m; ++k) {
            double z = tenor_curve_nan();
            if (!failed) {
                const double tenor = times[k + 1u], y = par[(u64)k * n + c];
                if (isfinite(y) && y > -0.5) {
                    z = tenor <= 1.0 + TENOR_CURVE_BILL_EPS ? -tenor * tenor_curve_bey(y)
                                                             : tenor_curve_par_bond(times, logs, k, tenor, y);
                }
            }
            failed = isnan(z);
            if (!failed) logs[k + 1u] = z;  // only a valid launch (m <= 32) solves a node
            log_df[(u64)k * n + c] = z;
        }
    }
}
