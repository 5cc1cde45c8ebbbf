// Black implied volatility (see kernel.toml): the normalised Black function of Jaeckel, "Let's Be
// Rational" (Wilmott 2015), and its inversion by safeguarded Halley iterations, the same
// operations as kernels/src/black.rs (whose module documentation explains the regions and the
// three objectives). Status codes: 0 ok, 1 below intrinsic, 2 above the upper bound, 3 invalid
// input, 4 no convergence.
#define TENOR_IV_INV_SQRT_2PI 0.3989422804014327
#define TENOR_IV_SQRT_2PI 2.5066282746310007
#define TENOR_IV_FRAC_1_SQRT_2 0.7071067811865476
#define TENOR_IV_EPS 2.220446049250313e-16
#define TENOR_IV_ASYMPTOTIC_H (-10.0)
#define TENOR_IV_SMALL_T 0.21
#define TENOR_IV_CF_BELOW (-3.0)
#define TENOR_IV_CF_DEPTH 48u
#define TENOR_IV_MAX_ITERATIONS 100u

__device__ __forceinline__ double tenor_iv_nan() { return __longlong_as_double(0x7FF8000000000000ll); }

// Standard normal distribution function erfc(-z / sqrt 2) / 2.
__device__ __forceinline__ double tenor_iv_norm_cdf(double z) { return 0.5 * erfc(-z * TENOR_IV_FRAC_1_SQRT_2); }

// m(z) = Phi(z) / phi(z) and 1 + z m(z) (Laplace's continued fraction below z = -3).
__device__ __forceinline__ void tenor_iv_mills(double z, double* m, double* a) {
    if (z < TENOR_IV_CF_BELOW) {
        const double y = -z;
        double c = 0.0;
        for (u32 n = TENOR_IV_CF_DEPTH; n > 0; --n) c = (double)n / (y + c);
        *m = 1.0 / (y + c);
        *a = c * *m;
    } else {
        *m = tenor_iv_norm_cdf(z) * TENOR_IV_SQRT_2PI * exp(0.5 * z * z);
        *a = 1.0 + z * *m;
    }
}

// Asymptotic expansion of m(h + t) - m(h - t) for h + t < -9.79.
__device__ double tenor_iv_asymptotic_difference(double h, double t) {
    const double ah = -h;
    const double tau = t / ah;
    const double g = 1.0 / (ah * (1.0 - tau * tau));
    double sum = 0.0, double_factorial = 1.0, g_pow = g, last = __longlong_as_double(0x7FF0000000000000ll);
    for (u32 n = 0; n < 60u; ++n) {
        const u32 k = 2u * n + 1u;
        double s_k = 0.0, binom = (double)k, tau_pow = tau;
        for (u32 j = 1; j <= k; j += 2) {
            s_k += binom * tau_pow;
            const u32 km = j + 1u <= k ? k - j - 1u : 0u;
            binom *= (double)(k - j) * (double)km / ((double)(j + 1u) * (double)(j + 2u));
            tau_pow *= tau * tau;
        }
        const double term = double_factorial * 2.0 * s_k * g_pow;
        if (term >= last) break;
        sum += (n % 2u == 0u) ? term : -term;
        if (term <= TENOR_IV_EPS * 0.25 * fabs(sum)) break;
        last = term;
        double_factorial *= (double)k;
        g_pow *= g * g;
    }
    return sum;
}

// Taylor expansion in t of m(h + t) - m(h - t) for t < 0.21 (7 terms).
__device__ double tenor_iv_small_t_difference(double h, double t) {
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
__device__ double tenor_iv_black_otm(double x, double s) {
    if (s <= 0.0) return 0.0;
    x = -fabs(x);
    const double h = x / s;
    const double t = 0.5 * s;
    if (h + t > 0.85) {
        return fmax(tenor_iv_norm_cdf(h + t) * exp(0.5 * x) - tenor_iv_norm_cdf(h - t) * exp(-0.5 * x), 0.0);
    }
    const double factor = TENOR_IV_INV_SQRT_2PI * exp(-0.5 * (h * h + t * t));
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
    return fmax(factor * diff, 0.0);
}

// Distance of b(x, s) to its upper bound e^{x/2}: e^{x/2} Phi(-h-t) + e^{-x/2} Phi(h-t).
__device__ __forceinline__ double tenor_iv_distance_to_upper(double x, double s) {
    const double h = x / s;
    const double t = 0.5 * s;
    return exp(0.5 * x) * tenor_iv_norm_cdf(-h - t) + exp(-0.5 * x) * tenor_iv_norm_cdf(h - t);
}

// Normalised vega db/ds = exp(-(h^2 + t^2) / 2) / sqrt(2 pi).
__device__ __forceinline__ double tenor_iv_vega(double x, double s) {
    const double h = x / s;
    const double t = 0.5 * s;
    return TENOR_IV_INV_SQRT_2PI * exp(-0.5 * (h * h + t * t));
}

// Total implied volatility s of a normalised out-of-the-money price beta = b(x, s); returns the
// status code and writes s when it is 0.
__device__ u32 tenor_iv_total_vol_otm(double beta, double x, double* out) {
    x = -fabs(x);
    if (isnan(beta) || isnan(x)) return 3u;
    if (beta <= 0.0) return 1u;
    const double bmax = exp(0.5 * x);
    if (beta >= bmax) return 2u;
    const double sc = sqrt(2.0 * fabs(x));
    const double bc = tenor_iv_black_otm(x, sc);
    const double upper_target = bmax - beta;
    // Objective: 0 = ln b, 1 = b, 2 = ln(bmax - b).
    const int objective = beta < bc ? 0 : (upper_target < 0.5 * (bmax - bc) ? 2 : 1);
    const double inf = __longlong_as_double(0x7FF0000000000000ll);
    double lo = 0.0, hi = inf;
    double s = sc > 0.0 ? sc : TENOR_IV_SQRT_2PI * beta;
    if (objective == 0) {
        const double q = fabs(x) / sqrt(-2.0 * log(beta));
        const double qc = fabs(x) / sqrt(-2.0 * log(bc));
        const double g = q + (sc - qc) * (q / qc) * (q / qc);
        if (isfinite(g) && g > 0.0 && g < sc) s = g;
    }
    for (u32 iter = 0; iter < TENOR_IV_MAX_ITERATIONS; ++iter) {
        const double b = tenor_iv_black_otm(x, s);
        if (b == beta) {
            *out = s;
            return 0u;
        }
        if (b < beta) lo = fmax(lo, s);
        else hi = fmin(hi, s);
        const double v = tenor_iv_vega(x, s);
        const double curvature = x * x / (s * s * s) - 0.25 * s;  // b'' / b'
        double f, f1, f2;
        if (objective == 0 && b > 0.0) {
            const double r = v / b;
            f = log(b / beta);
            f1 = r;
            f2 = r * curvature - r * r;
        } else if (objective == 2) {
            const double u = tenor_iv_distance_to_upper(x, s);
            if (u > 0.0) {
                const double r = v / u;
                f = log(u / upper_target);
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
        if (f1 != 0.0 && isfinite(f1) && isfinite(f)) {
            const double newton = -f / f1;
            const double denom = 1.0 + 0.5 * newton * f2 / f1;
            const bool halley = denom > 0.5 && isfinite(denom);
            const double step = halley ? newton / denom : newton;
            next = s + step;
            const double done = halley ? 1e-7 * s : 2.0 * TENOR_IV_EPS * s;
            if (fabs(step) <= done && next > lo && next < hi) {
                *out = next;
                return 0u;
            }
        }
        if (!(next > lo && next < hi)) next = isfinite(hi) ? 0.5 * (lo + hi) : 2.0 * fmax(fmax(s, lo), 1e-3);
        const double step = next - s;
        s = next;
        if (fabs(step) <= 2.0 * TENOR_IV_EPS * s || (isfinite(hi) && hi - lo <= 2.0 * TENOR_IV_EPS * hi)) {
            *out = s;
            return 0u;
        }
    }
    return 4u;
}

__device__ __forceinline__ bool tenor_iv_valid(double v) { return isfinite(v) && v > 0.0; }

extern "C" __global__ void implied_vol(const double* __restrict__ price, const double* __restrict__ forward,
                                       const double* __restrict__ strike, const double* __restrict__ maturity,
                                       const double* __restrict__ discount, const u32* __restrict__ is_call,
                                       double* __restrict__ vol, u32* __restrict__ status, u64 n) {
    TENOR_FOR_ITEMS(i, n) {
        const double d = discount[i];
        const double p = tenor_iv_valid(d) ? price[i] / d : tenor_iv_nan();
        const double f = forward[i], k = strike[i], t = maturity[i];
        const bool call = is_call[i] == 1u;
        double v = tenor_iv_nan();
        u32 st;
        if (!(tenor_iv_valid(f) && tenor_iv_valid(k) && tenor_iv_valid(t) && isfinite(p))) {
            st = 3u;
        } else {
            const double intrinsic = call ? fmax(f - k, 0.0) : fmax(k - f, 0.0);
            const double upper = call ? f : k;
            if (p >= upper) {
                st = 2u;
            } else if (p <= intrinsic) {
                st = 1u;
            } else {
                const double beta = (p - intrinsic) / sqrt(f * k);
                double s = 0.0;
                st = tenor_iv_total_vol_otm(beta, log(f / k), &s);
                if (st == 0u) v = s / sqrt(t);
            }
        }
        vol[i] = v;
        status[i] = st;
    }
}
