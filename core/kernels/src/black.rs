//! The normalised Black function and its inverse (implied volatility) to machine precision.
//!
//! Notation of Jäckel, "Let's Be Rational" (Wilmott 2015): for forward `F`, strike `K`, total
//! volatility `s = σ √T` and log-moneyness `x = ln(F / K)`, the undiscounted Black price of an
//! option of sign `θ` (+1 call, -1 put) is `√(F K) · b_θ(x, s)` with
//! `b_θ(x, s) = θ (e^{x/2} Φ(θ (x/s + s/2)) - e^{-x/2} Φ(θ (x/s - s/2)))`.
//! Every price reduces to the out-of-the-money call `b(x, s)`, `x ≤ 0`: `b_θ(x, s)` equals the
//! normalised intrinsic value `max(θ 2 sinh(x/2), 0)` plus `b(-|x|, s)`.
//!
//! # Evaluation of `b(x, s)`, `x ≤ 0`
//! With `h = x / s`, `t = s / 2` and the Mills-type ratio `m(z) = Φ(z) / φ(z)`,
//! `b = φ-factor · (m(h + t) - m(h - t))`, `φ-factor = exp(-(h² + t²) / 2) / √(2π)`, which has
//! no exponential overflow. Four regions, as in Jäckel (2015), section 3:
//! * `h < -10` and `h + t < -9.79`: the asymptotic expansion of `m` at both arguments,
//!   `m(z) ~ Σ_n (-1)^{n+1} (2n-1)!! z^{-(2n+1)}`, combined term by term without cancellation;
//! * `t < 0.21`: the Taylor expansion in `t` of `m(h + t) - m(h - t) = 2 Σ_j m^{(2j+1)}(h)
//!   t^{2j+1} / (2j+1)!` (7 terms), using `m' = 1 + h m` and `m^{(k+1)} = h m^{(k)} + k m^{(k-1)}`;
//! * `h + t > 0.85`: the two normal distribution functions directly;
//! * otherwise the difference of the two Mills ratios.
//!
//! `m(z)` for `z ≤ -3` comes from Laplace's continued fraction `1 / (y + 1 / (y + 2 / (y + …)))`,
//! `y = -z` (48 levels, below 1e-16 relative for `y ≥ 3`), which also gives `1 + z m(z)` without
//! cancellation; elsewhere from `Φ(z) / φ(z)` with `Φ` through `erfc` (libm, the FreeBSD/musl
//! implementation, under one ulp).
//!
//! # Inversion
//! Halley iterations safeguarded by a bracket, on one of three objectives chosen by where the
//! target price lies relative to the price `b_c` at the inflection point `s_c = √(2|x|)`:
//! `ln b` below `b_c` (nearly linear in `1/s` in the lower wing), `b` itself around `b_c`, and
//! `ln(e^{x/2} - b)` near the upper bound, where the distance to the bound is evaluated directly
//! (`e^{x/2} Φ(-h-t) + e^{-x/2} Φ(h-t)`). The lower-wing start is a quadratic in
//! `q = |x| / √(-2 ln β)` exact at `s → 0` and at `s_c`. Iterations stop after a Halley step
//! below `1e-7 s` (cubic convergence leaves an error under an ulp) or a Newton step below 2 ulp.
//! The result is accurate to the attainable precision (about 1e-15 relative for out-of-the-money
//! quotes; for in-the-money quotes the subtraction of the intrinsic value limits it).

use std::f64::consts::FRAC_1_SQRT_2;

/// 1 / √(2π).
pub const INV_SQRT_2PI: f64 = 0.398_942_280_401_432_7;
/// √(2π).
const SQRT_2PI: f64 = 2.506_628_274_631_000_7;

const ASYMPTOTIC_H: f64 = -10.0;
const SMALL_T: f64 = 0.21;
const CF_BELOW: f64 = -3.0;
const CF_DEPTH: u32 = 48;
const MAX_ITERATIONS: u32 = 100;

/// Why a price has no implied volatility (the codes the `implied_vol` kernel writes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IvStatus {
    /// A volatility was found (code 0).
    Ok,
    /// The price is at or below the intrinsic value `max(θ (F - K), 0)` (code 1).
    BelowIntrinsic,
    /// The price is at or above the upper bound: `F` for a call, `K` for a put (code 2).
    AboveUpperBound,
    /// Forward, strike or maturity not positive and finite, or the price not finite (code 3).
    InvalidInput,
    /// The iteration did not converge in 100 steps (code 4; not observed in tests).
    NoConvergence,
}

impl IvStatus {
    /// The kernel's status code.
    pub fn code(self) -> u32 {
        match self {
            Self::Ok => 0,
            Self::BelowIntrinsic => 1,
            Self::AboveUpperBound => 2,
            Self::InvalidInput => 3,
            Self::NoConvergence => 4,
        }
    }
    /// The status of a kernel code (unknown codes map to `InvalidInput`).
    pub fn from_code(code: u32) -> Self {
        match code {
            0 => Self::Ok,
            1 => Self::BelowIntrinsic,
            2 => Self::AboveUpperBound,
            4 => Self::NoConvergence,
            _ => Self::InvalidInput,
        }
    }
    /// A short reason for reports.
    pub fn reason(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::BelowIntrinsic => "price at or below intrinsic value",
            Self::AboveUpperBound => "price at or above the no-arbitrage upper bound",
            Self::InvalidInput => "forward, strike, maturity or price not positive and finite",
            Self::NoConvergence => "no convergence",
        }
    }
}

/// Standard normal distribution function `Φ(z) = erfc(-z / √2) / 2`.
pub fn norm_cdf(z: f64) -> f64 {
    0.5 * libm::erfc(-z * FRAC_1_SQRT_2)
}

/// `(m(z), 1 + z m(z))` with `m = Φ / φ`.
fn mills(z: f64) -> (f64, f64) {
    if z < CF_BELOW {
        let y = -z;
        let mut c = 0.0;
        let mut n = CF_DEPTH;
        while n > 0 {
            c = f64::from(n) / (y + c);
            n -= 1;
        }
        let m = 1.0 / (y + c);
        (m, c * m)
    } else {
        let m = norm_cdf(z) * SQRT_2PI * (0.5 * z * z).exp();
        (m, 1.0 + z * m)
    }
}

/// Asymptotic expansion of `m(h + t) - m(h - t)` for `h + t < -9.79` (see the module docs).
fn asymptotic_difference(h: f64, t: f64) -> f64 {
    let ah = -h;
    let tau = t / ah;
    let g = 1.0 / (ah * (1.0 - tau * tau));
    let mut sum = 0.0;
    let mut double_factorial = 1.0; // (2n - 1)!!
    let mut g_pow = g; // g^(2n+1)
    let mut last = f64::INFINITY;
    for n in 0..60u32 {
        let k = 2 * n + 1;
        // S_k = (1 + τ)^k - (1 - τ)^k = 2 Σ_{j odd} C(k, j) τ^j, all terms positive.
        let mut s_k = 0.0;
        let mut binom = f64::from(k); // C(k, 1)
        let mut tau_pow = tau;
        let mut j = 1;
        while j <= k {
            s_k += binom * tau_pow;
            // C(k, j + 2) = C(k, j) (k - j) (k - j - 1) / ((j + 1) (j + 2))
            binom *= f64::from(k - j) * f64::from(k.saturating_sub(j + 1)) / (f64::from(j + 1) * f64::from(j + 2));
            tau_pow *= tau * tau;
            j += 2;
        }
        let term = double_factorial * 2.0 * s_k * g_pow;
        if term >= last {
            break; // the asymptotic series has reached its smallest term
        }
        sum += if n % 2 == 0 { term } else { -term };
        if term <= f64::EPSILON * 0.25 * sum.abs() {
            break;
        }
        last = term;
        double_factorial *= f64::from(k);
        g_pow *= g * g;
    }
    sum
}

/// Taylor expansion in `t` of `m(h + t) - m(h - t)` for `t < 0.21` (see the module docs).
fn small_t_difference(h: f64, t: f64) -> f64 {
    let (m, a) = mills(h);
    // derivatives m^(k), k = 0..=13
    let mut d = [0.0f64; 14];
    d[0] = m;
    d[1] = a;
    for k in 1..13 {
        d[k + 1] = h * d[k] + k as f64 * d[k - 1];
    }
    let t2 = t * t;
    // Σ_j d[2j+1] t^(2j+1) / (2j+1)!, Horner from the highest term.
    let mut acc = 0.0;
    let mut j = 6usize;
    loop {
        let k = 2 * j + 1;
        acc = d[k] + acc * t2 / ((k + 1) as f64 * (k + 2) as f64);
        if j == 0 {
            break;
        }
        j -= 1;
    }
    2.0 * t * acc
}

/// Normalised out-of-the-money Black call `b(x, s)` for `x ≤ 0`, `s ≥ 0` (module docs).
/// Returns 0 for `s = 0`; relative accuracy a few ulp (more where `h²` is large, from the
/// rounding of `h`, which the inversion's conditioning removes again).
pub fn normalised_black_otm(x: f64, s: f64) -> f64 {
    if s <= 0.0 {
        return 0.0;
    }
    let x = -x.abs();
    let h = x / s;
    let t = 0.5 * s;
    if h + t > 0.85 {
        return (norm_cdf(h + t) * (0.5 * x).exp() - norm_cdf(h - t) * (-0.5 * x).exp()).max(0.0);
    }
    let factor = INV_SQRT_2PI * (-0.5 * (h * h + t * t)).exp();
    if factor == 0.0 {
        return 0.0;
    }
    let diff = if h < ASYMPTOTIC_H && h + t < ASYMPTOTIC_H + SMALL_T {
        asymptotic_difference(h, t)
    } else if t < SMALL_T {
        small_t_difference(h, t)
    } else {
        mills(h + t).0 - mills(h - t).0
    };
    (factor * diff).max(0.0)
}

/// Distance of `b(x, s)` to its upper bound `e^{x/2}` for `x ≤ 0`, evaluated directly:
/// `e^{x/2} Φ(-h-t) + e^{-x/2} Φ(h-t)`.
fn distance_to_upper(x: f64, s: f64) -> f64 {
    let h = x / s;
    let t = 0.5 * s;
    (0.5 * x).exp() * norm_cdf(-h - t) + (-0.5 * x).exp() * norm_cdf(h - t)
}

/// Normalised vega `∂b/∂s = exp(-(h² + t²)/2) / √(2π)`.
fn normalised_vega(x: f64, s: f64) -> f64 {
    let h = x / s;
    let t = 0.5 * s;
    INV_SQRT_2PI * (-0.5 * (h * h + t * t)).exp()
}

/// Undiscounted Black price of a call (`is_call`) or put on forward `forward` with strike
/// `strike`, volatility `vol` and maturity `maturity` years. Computed as intrinsic value plus
/// `√(F K) b(-|x|, σ√T)`, so out-of-the-money prices keep full relative precision.
pub fn black_price(forward: f64, strike: f64, vol: f64, maturity: f64, is_call: bool) -> f64 {
    let intrinsic = if is_call { (forward - strike).max(0.0) } else { (strike - forward).max(0.0) };
    let s = vol * maturity.sqrt();
    intrinsic + (forward * strike).sqrt() * normalised_black_otm((forward / strike).ln(), s)
}

/// Total implied volatility `s` of a normalised out-of-the-money price `beta = b(x, s)`, `x ≤ 0`.
///
/// # Errors
/// [`IvStatus::BelowIntrinsic`] for `beta ≤ 0`, [`IvStatus::AboveUpperBound`] for
/// `beta ≥ e^{x/2}`, [`IvStatus::NoConvergence`] after 100 iterations.
pub fn implied_total_vol_otm(beta: f64, x: f64) -> Result<f64, IvStatus> {
    let x = -x.abs();
    if beta.is_nan() || x.is_nan() {
        return Err(IvStatus::InvalidInput);
    }
    if beta <= 0.0 {
        return Err(IvStatus::BelowIntrinsic);
    }
    let bmax = (0.5 * x).exp();
    if beta >= bmax {
        return Err(IvStatus::AboveUpperBound);
    }
    let sc = (2.0 * x.abs()).sqrt();
    let bc = normalised_black_otm(x, sc);
    let upper_target = bmax - beta;
    // Objective: 0 = ln b, 1 = b, 2 = ln(bmax - b).
    let objective = if beta < bc {
        0
    } else if upper_target < 0.5 * (bmax - bc) {
        2
    } else {
        1
    };
    let (mut lo, mut hi) = (0.0f64, f64::INFINITY);
    let mut s = if sc > 0.0 { sc } else { SQRT_2PI * beta };
    if objective == 0 {
        // Lower wing: q(s) = |x| / √(-2 ln b(s)) tends to s as s → 0 (b ~ exp(-x²/(2s²))) and is
        // q_c at s_c; the guess is the quadratic s(q) = q + (s_c - q_c) (q / q_c)² through both
        // ends with unit slope at 0, evaluated at q = |x| / √(-2 ln β).
        let q = x.abs() / (-2.0 * beta.ln()).sqrt();
        let qc = x.abs() / (-2.0 * bc.ln()).sqrt();
        let g = q + (sc - qc) * (q / qc) * (q / qc);
        if g.is_finite() && g > 0.0 && g < sc {
            s = g;
        }
    }
    for _ in 0..MAX_ITERATIONS {
        let b = normalised_black_otm(x, s);
        if b == beta {
            return Ok(s);
        }
        if b < beta {
            lo = lo.max(s);
        } else {
            hi = hi.min(s);
        }
        let v = normalised_vega(x, s);
        let curvature = x * x / (s * s * s) - 0.25 * s; // b'' / b'
        let (f, f1, f2) = match objective {
            0 if b > 0.0 => {
                let r = v / b;
                ((b / beta).ln(), r, r * curvature - r * r)
            }
            2 => {
                let u = distance_to_upper(x, s);
                if u > 0.0 {
                    let r = v / u;
                    ((u / upper_target).ln(), -r, -r * curvature - r * r)
                } else {
                    (b - beta, v, v * curvature)
                }
            }
            _ => (b - beta, v, v * curvature),
        };
        let mut next = f64::NAN;
        if f1 != 0.0 && f1.is_finite() && f.is_finite() {
            let newton = -f / f1;
            let denom = 1.0 + 0.5 * newton * f2 / f1;
            let halley = denom > 0.5 && denom.is_finite();
            let step = if halley { newton / denom } else { newton };
            next = s + step;
            // Halley converges cubically: after a step below 1e-7 s the error is below
            // K (1e-7)^3 s, under an ulp for any curvature constant K < 1e5.
            let done = if halley { 1e-7 * s } else { 2.0 * f64::EPSILON * s };
            if step.abs() <= done && next > lo && next < hi {
                return Ok(next);
            }
        }
        if !(next > lo && next < hi) {
            next = if hi.is_finite() { 0.5 * (lo + hi) } else { 2.0 * s.max(lo).max(1e-3) };
        }
        let step = next - s;
        s = next;
        if step.abs() <= 2.0 * f64::EPSILON * s || (hi.is_finite() && hi - lo <= 2.0 * f64::EPSILON * hi) {
            return Ok(s);
        }
    }
    Err(IvStatus::NoConvergence)
}

/// Black implied volatility of an undiscounted price `price` of a call (`is_call`) or put with
/// forward `forward`, strike `strike`, maturity `maturity` years.
///
/// # Errors
/// [`IvStatus::InvalidInput`] for non-positive or non-finite forward, strike or maturity, or a
/// non-finite price; [`IvStatus::BelowIntrinsic`] when `price ≤ max(θ (F - K), 0)`;
/// [`IvStatus::AboveUpperBound`] when `price ≥ F` (call) or `≥ K` (put);
/// [`IvStatus::NoConvergence`].
pub fn implied_vol(price: f64, forward: f64, strike: f64, maturity: f64, is_call: bool) -> Result<f64, IvStatus> {
    let valid = |v: f64| v.is_finite() && v > 0.0;
    if !(valid(forward) && valid(strike) && valid(maturity) && price.is_finite()) {
        return Err(IvStatus::InvalidInput);
    }
    let (intrinsic, upper) =
        if is_call { ((forward - strike).max(0.0), forward) } else { ((strike - forward).max(0.0), strike) };
    if price >= upper {
        return Err(IvStatus::AboveUpperBound);
    }
    if price <= intrinsic {
        return Err(IvStatus::BelowIntrinsic);
    }
    let beta = (price - intrinsic) / (forward * strike).sqrt();
    implied_total_vol_otm(beta, (forward / strike).ln()).map(|s| s / maturity.sqrt())
}
