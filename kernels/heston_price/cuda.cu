// heston_price (see kernel.toml): European prices under Heston, one work item per (parameter
// set, quote), by the Lewis (2001) integral with a Black-Scholes control variate and the
// "little Heston trap" characteristic function (Albrecher et al. 2007) on a rational map of the
// frequency axis onto (0, 1), integrated with the caller's Gauss-Legendre nodes. The same
// operations in the same order as kernels/src/heston.rs, whose module documentation gives the
// formulas, sources and accuracy.
#define TENOR_HP_FRAC_1_SQRT_2 0.7071067811865476
#define TENOR_HP_FRAC_1_PI 0.3183098861837907

struct tenor_hp_cx { double re, im; };

__device__ __forceinline__ tenor_hp_cx tenor_hp_make(double re, double im) {
    tenor_hp_cx z; z.re = re; z.im = im; return z;
}
__device__ __forceinline__ tenor_hp_cx tenor_hp_add(tenor_hp_cx a, tenor_hp_cx b) {
    return tenor_hp_make(a.re + b.re, a.im + b.im);
}
__device__ __forceinline__ tenor_hp_cx tenor_hp_sub(tenor_hp_cx a, tenor_hp_cx b) {
    return tenor_hp_make(a.re - b.re, a.im - b.im);
}
__device__ __forceinline__ tenor_hp_cx tenor_hp_mul(tenor_hp_cx a, tenor_hp_cx b) {
    return tenor_hp_make(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
__device__ __forceinline__ tenor_hp_cx tenor_hp_scale(tenor_hp_cx a, double s) {
    return tenor_hp_make(a.re * s, a.im * s);
}
// Smith's (1962) division.
__device__ __forceinline__ tenor_hp_cx tenor_hp_div(tenor_hp_cx a, tenor_hp_cx b) {
    if (fabs(b.re) >= fabs(b.im)) {
        const double r = b.im / b.re;
        const double den = b.re + b.im * r;
        return tenor_hp_make((a.re + a.im * r) / den, (a.im - a.re * r) / den);
    }
    const double r = b.re / b.im;
    const double den = b.re * r + b.im;
    return tenor_hp_make((a.re * r + a.im) / den, (a.im * r - a.re) / den);
}
// Principal square root.
__device__ __forceinline__ tenor_hp_cx tenor_hp_sqrt(tenor_hp_cx z) {
    const double r = hypot(z.re, z.im);
    if (r == 0.0) return tenor_hp_make(0.0, 0.0);
    if (z.re >= 0.0) {
        const double t = sqrt(0.5 * (r + z.re));
        return tenor_hp_make(t, z.im / (2.0 * t));
    }
    const double t = sqrt(0.5 * (r - z.re));
    return tenor_hp_make(fabs(z.im) / (2.0 * t), copysign(t, z.im));
}
__device__ __forceinline__ tenor_hp_cx tenor_hp_exp(tenor_hp_cx z) {
    const double m = exp(z.re);
    return tenor_hp_make(m * cos(z.im), m * sin(z.im));
}
// e^z - 1 = expm1(x) cos y - 2 sin^2(y/2) + i e^x sin y.
__device__ __forceinline__ tenor_hp_cx tenor_hp_expm1(tenor_hp_cx z) {
    const double s = sin(0.5 * z.im);
    return tenor_hp_make(expm1(z.re) * cos(z.im) - 2.0 * s * s, exp(z.re) * sin(z.im));
}
// ln(1 + z), principal.
__device__ __forceinline__ tenor_hp_cx tenor_hp_log1p(tenor_hp_cx z) {
    const double re = 0.5 * log1p(2.0 * z.re + z.re * z.re + z.im * z.im);
    return tenor_hp_make(re, atan2(z.im, 1.0 + z.re));
}

// ln phi_H(u - i/2) at maturity t.
__device__ tenor_hp_cx tenor_hp_log_cf(double v0, double kappa, double theta, double sigma, double rho, double t,
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

__device__ __forceinline__ double tenor_hp_norm_cdf(double z) { return 0.5 * erfc(-z * TENOR_HP_FRAC_1_SQRT_2); }

__device__ __forceinline__ bool tenor_hp_pos(double v) { return isfinite(v) && v > 0.0; }

extern "C" __global__ void heston_price(const double* __restrict__ strike, const double* __restrict__ forward,
                                        const double* __restrict__ maturity, const double* __restrict__ discount,
                                        const u32* __restrict__ is_call, const double* __restrict__ params,
                                        const double* __restrict__ nodes, const double* __restrict__ weights,
                                        double* __restrict__ price, u64 items, u64 quotes, u32 nodes_count) {
    if (quotes == 0) return;
    TENOR_FOR_ITEMS(i, items) {
        const u64 set = i / quotes, j = i % quotes;
        const double v0 = params[5 * set], kappa = params[5 * set + 1], theta = params[5 * set + 2];
        const double sigma = params[5 * set + 3], rho = params[5 * set + 4];
        const double f = forward[j], k = strike[j], t = maturity[j], df = discount[j];
        const bool call = is_call[j] == 1u;
        if (!(tenor_hp_pos(f) && tenor_hp_pos(k) && tenor_hp_pos(t) && tenor_hp_pos(df) && tenor_hp_pos(v0) &&
              tenor_hp_pos(kappa) && tenor_hp_pos(theta) && tenor_hp_pos(sigma) && rho > -1.0 && rho < 1.0)) {
            price[i] = __longlong_as_double(0x7FF8000000000000ll);
            continue;
        }
        const double lk = log(k / f);
        // Expected integrated variance (the control variate's total variance).
        const double kt = kappa * t;
        const double decay = kt > 1e-8 ? -expm1(-kt) / kappa : t * (1.0 - 0.5 * kt);
        const double w = theta * t + (v0 - theta) * decay;
        // Transform scale.
        const double c_inf = sqrt(1.0 - rho * rho) * (v0 + kappa * theta * t) / sigma;
        const double u_end = fmax(sqrt(72.0 / w), 36.0 / c_inf);
        const double us = 3.0 * sqrt(u_end / sqrt(w));
        double sum = 0.0;
        for (u32 n = 0; n < nodes_count; ++n) {
            const double x = nodes[n];
            const double u = us * (1.0 - x) / x;
            const double q = u * u + 0.25;
            const tenor_hp_cx phi = tenor_hp_exp(tenor_hp_log_cf(v0, kappa, theta, sigma, rho, t, u));
            const double a = exp(-0.5 * w * q) - phi.re;
            const double b = -phi.im;
            double s, c;
            sincos(u * lk, &s, &c);
            sum += weights[n] * ((c * a + s * b) / q) / (x * x);
        }
        const double correction = sqrt(f * k) * TENOR_HP_FRAC_1_PI * sum * us;
        // Out-of-the-money Black price, then the intrinsic value if in the money.
        const double sd = sqrt(w);
        const double d1 = log(f / k) / sd + 0.5 * sd;
        const double d2 = d1 - sd;
        const double bs = k >= f ? f * tenor_hp_norm_cdf(d1) - k * tenor_hp_norm_cdf(d2)
                                 : k * tenor_hp_norm_cdf(-d2) - f * tenor_hp_norm_cdf(-d1);
        const double intrinsic = fmax(call ? f - k : k - f, 0.0);
        price[i] = fmax(df * (intrinsic + bs + correction), 0.0);
    }
}
