//! Continuously monitored single barrier options with cash rebate, in closed form.
//!
//! Source: E. Reiner and M. Rubinstein, "Breaking down the barriers", *Risk* 4(8), 1991,
//! pp. 28-35, in the notation of E. G. Haug, *The Complete Guide to Option Pricing Formulas*,
//! McGraw-Hill, 1st ed. 1998 pp. 69-72 ("Standard barrier options"), 2nd ed. 2007 section
//! 4.17.1: the terms A..F below and the table that combines them for the eight
//! down/up x in/out x call/put cases.
//!
//! With `b = r - q`, `s = sigma sqrt(T)`, `mu = (b - sigma^2/2)/sigma^2`,
//! `lambda = sqrt(mu^2 + 2r/sigma^2)`, `phi = +1` call / `-1` put, `eta = +1` down / `-1` up:
//! ```text
//! x1 = ln(S/K)/s + (1+mu)s        x2 = ln(S/H)/s + (1+mu)s
//! y1 = ln(H^2/(SK))/s + (1+mu)s   y2 = ln(H/S)/s + (1+mu)s      z = ln(H/S)/s + lambda s
//! A = phi S e^{-qT} N(phi x1) - phi K e^{-rT} N(phi x1 - phi s)
//! B = phi S e^{-qT} N(phi x2) - phi K e^{-rT} N(phi x2 - phi s)
//! C = phi S e^{-qT} (H/S)^{2(mu+1)} N(eta y1) - phi K e^{-rT} (H/S)^{2mu} N(eta y1 - eta s)
//! D = phi S e^{-qT} (H/S)^{2(mu+1)} N(eta y2) - phi K e^{-rT} (H/S)^{2mu} N(eta y2 - eta s)
//! E = R e^{-rT} [N(eta x2 - eta s) - (H/S)^{2mu} N(eta y2 - eta s)]
//! F = R [(H/S)^{mu+lambda} N(eta z) + (H/S)^{mu-lambda} N(eta z - 2 eta lambda s)]
//! ```
//! `E` is the in-rebate paid at expiry if never hit; `F` the out-rebate paid at the hit.
//! Each power of `H/S` is multiplied with its `N(.)` in log space (`ln_norm_cdf`), so tiny
//! vols do not overflow into `inf * 0`.
//!
//! Beyond the book:
//! - Spot on or beyond the barrier (`BarrierType::breached`): knock-out = rebate paid now,
//!   knock-in = the vanilla (`shared/spec/portfolio-csv.md`; QuantLib prices `S = H` as "not
//!   yet triggered", which gives the same numbers because both sides are continuous there).
//! - `sigma sqrt(T) < 1e-10` (including 0): the deterministic path `S e^{bt}` (its hitting time
//!   decides).
//! - `mu^2 + 2r/sigma^2 < 0` (possible with negative rates) makes `lambda` imaginary; `F` is then
//!   `R E[e^{-r tau}; tau <= T]` integrated numerically over the first-passage density of
//!   Brownian motion with drift (Gauss-Legendre), which equals the closed form wherever both
//!   apply.

use crate::analytic::bsm::black_scholes_price;
use crate::analytic::bump::{greeks_by_bump, BumpSteps};
use crate::analytic::normal::ln_norm_cdf;
use crate::error::PricingError;
use crate::types::{BarrierSpec, Greeks, OptionType};

/// Below this `sigma sqrt(T)` the deterministic-path limit replaces the formulas: there
/// `mu = (b - sigma^2/2)/sigma^2` can overflow (at `sigma ~ 1e-154`) and turn `(H/S)^{2mu} N(.)`
/// into `inf * 0`; the two differ by `O(sigma sqrt T)` (the width over which the hit becomes
/// uncertain), i.e. ~1e-7 relative. Between 1e-10 and 1e-7 the formulas lose all accuracy when
/// the drift is large against the volatility (`(H/S)^{2 mu}` with `mu ~ 1e16`): a proptest found
/// an up-and-out put at `sigma sqrt T = 7e-9` priced 264 against a bound of 54.
const DETERMINISTIC_BELOW: f64 = 1e-7;

/// Present value of a continuously monitored single barrier option with cash rebate
/// (Reiner & Rubinstein 1991; Haug 2007 section 4.17.1, Haug 1998 pp. 69-72).
///
/// Conventions: a knock-out pays `rebate` at the hit, a knock-in pays `rebate` at expiry if
/// never hit; a spot already on or beyond the barrier gives the rebate (out) or the vanilla
/// Black-Scholes-Merton price (in).
///
/// # Errors
/// [`PricingError::InvalidParameter`] naming the field, from [`BarrierSpec::validate`].
pub fn barrier_price(b: &BarrierSpec) -> Result<f64, PricingError> {
    b.validate()?;
    let v = &b.vanilla;
    let is_out = b.barrier_type.is_out();
    if b.barrier_type.breached(v.spot, b.barrier) {
        return if is_out { Ok(b.rebate) } else { black_scholes_price(v) };
    }
    let sd = v.vol * v.maturity.sqrt();
    if sd < DETERMINISTIC_BELOW {
        return Ok(deterministic(b));
    }
    let t = Terms::new(b, sd);
    let phi_call = v.option == OptionType::Call;
    let down = b.barrier_type.is_down();
    let k_above_h = v.strike >= b.barrier;
    // Haug (2007) section 4.17.1: the table of the eight cases.
    let value = match (down, is_out, phi_call, k_above_h) {
        // down-and-in call (S > H)
        (true, false, true, true) => t.c + t.e,
        (true, false, true, false) => t.a - t.b + t.d + t.e,
        // up-and-in call (S < H)
        (false, false, true, true) => t.a + t.e,
        (false, false, true, false) => t.b - t.c + t.d + t.e,
        // down-and-in put
        (true, false, false, true) => t.b - t.c + t.d + t.e,
        (true, false, false, false) => t.a + t.e,
        // up-and-in put
        (false, false, false, true) => t.a - t.b + t.d + t.e,
        (false, false, false, false) => t.c + t.e,
        // down-and-out call
        (true, true, true, true) => t.a - t.c + t.f,
        (true, true, true, false) => t.b - t.d + t.f,
        // up-and-out call
        (false, true, true, true) => t.f,
        (false, true, true, false) => t.a - t.b + t.c - t.d + t.f,
        // down-and-out put
        (true, true, false, true) => t.a - t.b + t.c - t.d + t.f,
        (true, true, false, false) => t.f,
        // up-and-out put
        (false, true, false, true) => t.b - t.d + t.f,
        (false, true, false, false) => t.a - t.c + t.f,
    };
    // Rounding in the differences above can leave a value a few ulp below zero.
    Ok(value.max(0.0))
}

/// Price and Greeks of a barrier option: the price from [`barrier_price`], the Greeks by
/// finite differences of it ([`greeks_by_bump`] with [`BumpSteps::default`], relative steps
/// 1e-4). The spot bumps stay on the side of the barrier the spot is on
/// ([`crate::analytic::BumpDomain::barrier_spot`]): central differences away from the barrier,
/// second-order one-sided ones pointing away from it when `S -/+ h` would cross it (Glasserman
/// 2004 section 7.1; [`crate::analytic::bump`]), so delta and gamma are those of the alive
/// contract and never mix in the knocked state. A spot on or beyond the barrier gives the
/// Greeks of the knocked state: all zero for a knock-out (the rebate, paid now), the vanilla's
/// for a knock-in (differences on the breached side).
///
/// # Errors
/// As [`barrier_price`].
pub fn barrier_greeks(b: &BarrierSpec) -> Result<Greeks, PricingError> {
    greeks_by_bump(barrier_price, b, &BumpSteps::default())
}

/// Haug's terms A..F for one contract (only for `sd >= DETERMINISTIC_BELOW`).
struct Terms {
    a: f64,
    b: f64,
    c: f64,
    d: f64,
    e: f64,
    f: f64,
}

impl Terms {
    fn new(spec: &BarrierSpec, sd: f64) -> Self {
        let v = &spec.vanilla;
        let (s, k, h, t) = (v.spot, v.strike, spec.barrier, v.maturity);
        let sig2 = v.vol * v.vol;
        let carry = v.rate - v.dividend;
        let mu = (carry - 0.5 * sig2) / sig2;
        let phi = v.option.sign();
        let eta = if spec.barrier_type.is_down() { 1.0 } else { -1.0 };
        let ln_hs = (h / s).ln();
        let ln_sk = (s / k).ln();
        let shift = (1.0 + mu) * sd;
        let x1 = ln_sk / sd + shift;
        let x2 = -ln_hs / sd + shift;
        let y1 = (2.0 * ln_hs + ln_sk) / sd + shift;
        let y2 = ln_hs / sd + shift;
        // ln(S e^{-qT}) and ln(K e^{-rT}).
        let ln_sq = s.ln() - v.dividend * t;
        let ln_kr = k.ln() - v.rate * t;
        // phi (S e^{-qT} N(phi x) - K e^{-rT} N(phi x - phi s)).
        let vanilla_like =
            |x: f64| phi * ((ln_sq + ln_norm_cdf(phi * x)).exp() - (ln_kr + ln_norm_cdf(phi * (x - sd))).exp());
        // phi (S e^{-qT} (H/S)^{2(mu+1)} N(eta y) - K e^{-rT} (H/S)^{2mu} N(eta y - eta s)).
        let reflected = |y: f64| {
            phi * ((ln_sq + 2.0 * (mu + 1.0) * ln_hs + ln_norm_cdf(eta * y)).exp()
                - (ln_kr + 2.0 * mu * ln_hs + ln_norm_cdf(eta * (y - sd))).exp())
        };
        let rebate = spec.rebate;
        let (e, f) = if rebate == 0.0 {
            (0.0, 0.0)
        } else {
            let e = rebate
                * ((-v.rate * t + ln_norm_cdf(eta * (x2 - sd))).exp()
                    - (-v.rate * t + 2.0 * mu * ln_hs + ln_norm_cdf(eta * (y2 - sd))).exp());
            let lambda_sq = mu * mu + 2.0 * v.rate / sig2;
            let f = if lambda_sq >= 0.0 {
                let lambda = lambda_sq.sqrt();
                let z = ln_hs / sd + lambda * sd;
                rebate
                    * ((((mu + lambda) * ln_hs) + ln_norm_cdf(eta * z)).exp()
                        + (((mu - lambda) * ln_hs) + ln_norm_cdf(eta * z - 2.0 * eta * lambda * sd)).exp())
            } else {
                rebate * hit_discount_quadrature(ln_hs.abs(), -eta * (carry - 0.5 * sig2), v.vol, v.rate, t)
            };
            (e, f)
        };
        Self { a: vanilla_like(x1), b: vanilla_like(x2), c: reflected(y1), d: reflected(y2), e, f }
    }
}

/// Value in the limit `sigma sqrt(T) -> 0`: the path is `S e^{bt}`, hit at `tau = ln(H/S)/b` if that lies
/// in `(0, T]`. Out: rebate `e^{-r tau}` if hit, else `e^{-rT}` intrinsic on the forward.
/// In: `e^{-rT}` intrinsic on the forward if hit, else the rebate `e^{-rT}`.
fn deterministic(b: &BarrierSpec) -> f64 {
    let v = &b.vanilla;
    let t = v.maturity;
    let carry = v.rate - v.dividend;
    let ln_hs = (b.barrier / v.spot).ln();
    let hit_time =
        if t > 0.0 && carry != 0.0 { Some(ln_hs / carry).filter(|&tau| tau > 0.0 && tau <= t) } else { None };
    let df = (-v.rate * t).exp();
    let forward = v.spot * (carry * t).exp();
    let intrinsic = df * v.option.payoff(forward, v.strike);
    match (b.barrier_type.is_out(), hit_time) {
        (true, Some(tau)) => b.rebate * (-v.rate * tau).exp(),
        (true, None) => intrinsic,
        (false, Some(_)) => intrinsic,
        (false, None) => b.rebate * df,
    }
}

/// `E[e^{-r tau}; tau <= T]` for `tau` the first time `X_t = nu t + sigma W_t` reaches the
/// level `h > 0`, by quadrature. Substituting `u = h/(sigma sqrt t)` in the first-passage
/// density `h/(sigma sqrt(2 pi t^3)) exp(-(h - nu t)^2/(2 sigma^2 t))` (e.g. Karatzas & Shreve,
/// *Brownian Motion and Stochastic Calculus*, 1991, eq. 3.5.12) gives
/// `integral_{u0}^inf 2 phi(u) exp(h nu/sigma^2 - c h^2/(sigma^2 u^2)) du`,
/// `u0 = h/(sigma sqrt T)`, `c = nu^2/(2 sigma^2) + r`: a Gaussian tail times a bounded smooth
/// factor. Integrated on panels `[u0 + v_k, u0 + v_{k+1}]` of doubling width (the first
/// `min(u0, 0.5/max(u0, 1))`) up to where `phi` has fallen by `e^{-40}`, 20 Gauss-Legendre
/// nodes each.
fn hit_discount_quadrature(h: f64, nu: f64, vol: f64, rate: f64, t: f64) -> f64 {
    let sig2 = vol * vol;
    let u0 = h / (vol * t.sqrt());
    let c = nu * nu / (2.0 * sig2) + rate;
    let const_term = h * nu / sig2;
    let integrand = |u: f64| {
        let ln_two_pdf = std::f64::consts::LN_2 - 0.5 * u * u - 0.5 * (2.0 * std::f64::consts::PI).ln();
        (ln_two_pdf + const_term - c * h * h / (sig2 * u * u)).exp()
    };
    let v_end = (u0 * u0 + 80.0).sqrt() - u0;
    let (nodes, weights) = gauss_legendre_20();
    let mut lo = 0.0;
    let mut width = u0.min(0.5 / u0.max(1.0));
    let mut sum = 0.0;
    while lo < v_end {
        let hi = (lo + width).min(v_end);
        let (mid, half) = (0.5 * (lo + hi), 0.5 * (hi - lo));
        let panel: f64 = nodes.iter().zip(weights.iter()).map(|(x, w)| w * integrand(u0 + mid + half * x)).sum();
        sum += half * panel;
        lo = hi;
        width *= 2.0;
    }
    sum
}

/// Nodes and weights of 20-point Gauss-Legendre quadrature on [-1, 1], by Newton's method on
/// the Legendre recurrence (Press et al., *Numerical Recipes*, 3rd ed. 2007, section 4.6.1).
fn gauss_legendre_20() -> ([f64; 20], [f64; 20]) {
    const N: usize = 20;
    let mut x = [0.0; N];
    let mut w = [0.0; N];
    for i in 0..N / 2 {
        let mut z = (std::f64::consts::PI * (i as f64 + 0.75) / (N as f64 + 0.5)).cos();
        let mut dp = 1.0;
        for _ in 0..100 {
            let (mut p0, mut p1) = (1.0, z);
            for j in 2..=N {
                let jf = j as f64;
                let p2 = ((2.0 * jf - 1.0) * z * p1 - (jf - 1.0) * p0) / jf;
                p0 = p1;
                p1 = p2;
            }
            dp = N as f64 * (z * p1 - p0) / (z * z - 1.0);
            let dz = p1 / dp;
            z -= dz;
            if dz.abs() < 1e-16 {
                break;
            }
        }
        x[i] = -z;
        x[N - 1 - i] = z;
        let wi = 2.0 / ((1.0 - z * z) * dp * dp);
        w[i] = wi;
        w[N - 1 - i] = wi;
    }
    (x, w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytic::normal::norm_cdf;

    /// The quadrature for the out-rebate against Haug's closed-form F term where both apply
    /// (lambda real). Independent check of `hit_discount_quadrature`.
    #[test]
    fn hit_discount_quadrature_matches_closed_form() {
        for &(s, h, vol, r, q, t) in &[
            (100.0, 95.0, 0.25, 0.08, 0.04, 0.5),
            (100.0, 105.0, 0.30, 0.08, 0.04, 0.5),
            (100.0, 99.9, 0.2, 0.01, 0.0, 2.0),
            (100.0, 60.0, 0.4, 0.03, 0.05, 5.0),
            (100.0, 140.0, 0.1, -0.002, -0.03, 1.0),
            (100.0, 100.001, 0.2, 0.05, 0.0, 1.0),
        ] {
            let sig2: f64 = vol * vol;
            let mu: f64 = (r - q - 0.5 * sig2) / sig2;
            let lambda = (mu * mu + 2.0 * r / sig2).sqrt();
            let sd: f64 = vol * f64::sqrt(t);
            let eta: f64 = if h < s { 1.0 } else { -1.0 };
            let hs: f64 = h / s;
            let z = hs.ln() / sd + lambda * sd;
            let closed = hs.powf(mu + lambda) * norm_cdf(eta * z)
                + hs.powf(mu - lambda) * norm_cdf(eta * z - 2.0 * eta * lambda * sd);
            let quad = hit_discount_quadrature(hs.ln().abs(), -eta * (r - q - 0.5 * sig2), vol, r, t);
            assert!(
                (quad - closed).abs() <= 1e-12 * closed.max(1e-3),
                "h {h}: quadrature {quad} vs closed form {closed}"
            );
        }
    }
}
