//! Black-Scholes-Merton price and Greeks of a European option on an asset with a continuous
//! dividend yield.
//!
//! Source: R. C. Merton, "Theory of rational option pricing", *Bell Journal of Economics and
//! Management Science* 4(1), 1973, pp. 141-183; formulas as in E. G. Haug, *The Complete Guide
//! to Option Pricing Formulas*, 2nd ed., McGraw-Hill 2007, section 1.1.6 (the generalized
//! Black-Scholes-Merton formula with cost of carry `b = r - q`) and chapter 2 (its Greeks);
//! 1st ed. 1998, pp. 8-16.
//!
//! With `F = S e^{(r-q)T}`, `s = sigma sqrt(T)`, `d1 = ln(F/K)/s + s/2`, `d2 = d1 - s` and
//! `w = +1` (call) or `-1` (put):
//! `V = w (S e^{-qT} N(w d1) - K e^{-rT} N(w d2))`.

use crate::analytic::normal::{norm_cdf, norm_pdf};
use crate::error::PricingError;
use crate::types::{Greeks, Vanilla};

/// Price and analytic Greeks of a European option under Black-Scholes-Merton with continuous
/// dividend yield (Merton 1973; Haug 2007, section 1.1.6 and chapter 2).
///
/// Units (`shared/spec/portfolio-csv.md`): `price` in currency, `delta = dV/dS`,
/// `gamma = d2V/dS2`, `vega = dV/dsigma` per 1.00 of vol, `theta = dV/dt` per year as calendar
/// time passes (= `-dV/dT`), `rho = dV/dr` per 1.00 of rate with the dividend yield held fixed.
///
/// # Errors
/// It returns `Result` because it validates its input ([`Vanilla::validate`]):
/// [`PricingError::InvalidParameter`] naming the field when spot or strike is not finite and
/// > 0, maturity or vol not finite and >= 0, or rate or dividend not finite.
///
/// # Degenerate limits
/// When `sigma sqrt(T) = 0` (vol 0 or maturity 0) the price is the discounted intrinsic value
/// on the forward, `e^{-rT} max(w (F - K), 0)`, and the Greeks are the limits as
/// `sigma sqrt(T) -> 0+`: no NaN. Off the kink (`F != K`) gamma and vega are 0 and delta is
/// `w e^{-qT}` in the money, 0 out of it. At the kink (`F = K` exactly) `N(d1) = N(d2) = 1/2`,
/// gamma is `+inf`, vega is `S e^{-qT} phi(0) sqrt(T)` (the `sigma -> 0` limit, 0 when `T = 0`),
/// and theta carries `-inf` for its time-decay term when `T = 0 < sigma`.
pub fn black_scholes(v: &Vanilla) -> Result<Greeks, PricingError> {
    v.validate()?;
    let w = v.option.sign();
    let t = v.maturity;
    let (s, k) = (v.spot, v.strike);
    let df_q = (-v.dividend * t).exp();
    let df_r = (-v.rate * t).exp();
    let sqrt_t = t.sqrt();
    let sd = v.vol * sqrt_t;
    // ln(F/K) without forming F (no overflow for large carry).
    let log_moneyness = (s / k).ln() + (v.rate - v.dividend) * t;

    // N(w d1), N(w d2) and phi(d1), with their sigma sqrt(T) -> 0 limits.
    let (n1, n2, pdf1, at_kink) = if sd > 0.0 {
        let d1 = log_moneyness / sd + 0.5 * sd;
        let d2 = d1 - sd;
        (norm_cdf(w * d1), norm_cdf(w * d2), norm_pdf(d1), false)
    } else if log_moneyness == 0.0 {
        (0.5, 0.5, 0.0, true)
    } else {
        let itm = if w * log_moneyness > 0.0 { 1.0 } else { 0.0 };
        (itm, itm, 0.0, false)
    };

    let spot_leg = s * df_q;
    let strike_leg = k * df_r;
    let price = (w * (spot_leg * n1 - strike_leg * n2)).max(0.0);
    let delta = w * df_q * n1;
    let carry_theta = w * (v.dividend * spot_leg * n1 - v.rate * strike_leg * n2);

    let (gamma, vega, decay_theta) = if sd > 0.0 {
        let gamma = df_q * pdf1 / (s * sd);
        let vega = spot_leg * pdf1 * sqrt_t;
        // -S e^{-qT} phi(d1) sigma / (2 sqrt T) = -vega * sigma / (2 T).
        let decay = -spot_leg * pdf1 * v.vol / (2.0 * sqrt_t);
        (gamma, vega, decay)
    } else if at_kink {
        let vega = spot_leg * norm_pdf(0.0) * sqrt_t;
        let decay = if t == 0.0 && v.vol > 0.0 { f64::NEG_INFINITY } else { 0.0 };
        (f64::INFINITY, vega, decay)
    } else {
        (0.0, 0.0, 0.0)
    };

    Ok(Greeks { price, delta, gamma, vega, theta: decay_theta + carry_theta, rho: w * t * strike_leg * n2 })
}

/// The Black-Scholes-Merton price alone (same method, errors and limits as
/// [`black_scholes`]).
pub fn black_scholes_price(v: &Vanilla) -> Result<f64, PricingError> {
    black_scholes(v).map(|g| g.price)
}
