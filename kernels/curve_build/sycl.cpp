// curve_build (see kernel.toml): one par-yield bootstrap per work-item, the same operations in
// the same order as kernels/src/curve.rs (whose module documentation gives the method: bills on
// the quoted basis, par bonds solved for ln D(T) by Newton's method through log-linear
// interpolation, Hagan and West 2006). Tenor-major layout: work-item c reads par[k * n + c] and
// writes log_df[k * n + c], so neighbouring work-items touch neighbouring addresses.
namespace {
constexpr uint32_t CURVE_MAX_TENORS = 32u;
constexpr double CURVE_NEWTON_TOL = 1e-12;
constexpr uint32_t CURVE_NEWTON_MAX = 64u;
constexpr double CURVE_BILL_EPS = 1e-12;
constexpr double CURVE_COUPON_EPS = 1e-9;

inline double curve_nan() { return sycl::bit_cast<double>(0x7FF8000000000000ull); }

// 2 ln(1 + y/2): a bond-equivalent yield as a continuously compounded rate.
inline double curve_bey(double y) { return 2.0 * sycl::log1p(0.5 * y); }

// Coupon i (0-based, date order) of a par bond of `coupons` coupons to `tenor` at coupon y.
inline double curve_time(double tenor, uint32_t coupons, uint32_t i) {
    return tenor - 0.5 * static_cast<double>(coupons - 1u - i);
}
inline double curve_cash(double tenor, double y, uint32_t coupons, uint32_t i) {
    const double accrual = i == 0u ? sycl::fmin(curve_time(tenor, coupons, 0u), 0.5) : 0.5;
    return y * accrual + (i + 1u == coupons ? 1.0 : 0.0);
}

// ln D(tenor) of a par bond at y on the nodes (times[0..=last], logs[0..=last]); NaN if Newton
// does not stop.
double curve_par_bond(const double *times, const double *logs, uint32_t last, double tenor, double y) {
    const double t_prev = times[last], l_prev = logs[last];
    uint32_t coupons = 0u;
    while (tenor - 0.5 * static_cast<double>(coupons) > CURVE_COUPON_EPS) ++coupons;
    double known = 0.0;
    uint32_t first = 0u, seg = 1u;
    while (first < coupons && curve_time(tenor, coupons, first) <= t_prev) {
        const double t = curve_time(tenor, coupons, first);
        while (times[seg] < t) ++seg;
        const double t0 = times[seg - 1u], t1 = times[seg], l0 = logs[seg - 1u], l1 = logs[seg];
        known += curve_cash(tenor, y, coupons, first) * sycl::exp(l0 + (l1 - l0) * (t - t0) / (t1 - t0));
        ++first;
    }
    double z = -tenor * curve_bey(y);
    for (uint32_t it = 0u; it < CURVE_NEWTON_MAX; ++it) {
        double price = known, deriv = 0.0;
        for (uint32_t i = first; i < coupons; ++i) {
            const double w = (curve_time(tenor, coupons, i) - t_prev) / (tenor - t_prev);
            const double d = sycl::exp(l_prev + (z - l_prev) * w);
            const double cf = curve_cash(tenor, y, coupons, i);
            price += cf * d;
            deriv += cf * d * w;
        }
        const double step = (price - 1.0) / deriv;
        z -= step;
        if (sycl::fabs(step) <= CURVE_NEWTON_TOL) return z;
        if (!sycl::isfinite(z)) break;
    }
    return curve_nan();
}

}  // namespace

extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void curve_build(const double *par, const double *tenors, double *log_df, uint64_t n, uint32_t m) {
    sycl::nd_item<1> it = tenor::item();
    bool valid = m >= 1u && m <= CURVE_MAX_TENORS;
    double times[CURVE_MAX_TENORS + 1u];
    double logs[CURVE_MAX_TENORS + 1u];
    times[0] = 0.0;
    logs[0] = 0.0;
    if (valid) {
        for (uint32_t k = 0u; k < m; ++k) {
            const double t = tenors[k];
            if (!(sycl::isfinite(t) && t > times[k])) valid = false;
            times[k + 1u] = t;
        }
    }
    uint64_t end = tenor::block_end(it, n);
    for (uint64_t c = tenor::block_first(it); c < end; c += it.get_local_range(0)) {
        bool failed = !valid;
        for (uint32_t k = 0u; k < m; ++k) {
            double z = curve_nan();
            if (!failed) {
                const double tenor = times[k + 1u], y = par[static_cast<uint64_t>(k) * n + c];
                if (sycl::isfinite(y) && y > -0.5) {
                    z = tenor <= 1.0 + CURVE_BILL_EPS ? -tenor * curve_bey(y)
                                                      : curve_par_bond(times, logs, k, tenor, y);
                }
            }
            failed = sycl::isnan(z);
            if (!failed) logs[k + 1u] = z;  // only a valid launch (m <= 32) solves a node
            log_df[static_cast<uint64_t>(k) * n + c] = z;
        }
    }
}
