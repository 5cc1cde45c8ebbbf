//! Black-Scholes-Merton European price (Merton 1973, continuous dividend yield), used as the
//! control variate of the finite-difference engine and as the lower bound in tests.

use crate::analytic::normal::norm_cdf;
use crate::types::{OptionType, Vanilla};

/// European price of `v`: `w (S e^{-qT} N(w d1) - K e^{-rT} N(w d2))`, `w` = +1 call, -1 put.
/// With zero total variance (`vol^2 T = 0`) it is the discounted intrinsic value of the
/// forward, `max(w (S e^{-qT} - K e^{-rT}), 0)`. Inputs are assumed validated.
pub fn black_scholes(v: &Vanilla) -> f64 {
    let w = v.option.sign();
    let df_q = (-v.dividend * v.maturity).exp();
    let df_r = (-v.rate * v.maturity).exp();
    let fwd_s = v.spot * df_q;
    let fwd_k = v.strike * df_r;
    let sd = v.vol * v.maturity.sqrt();
    if sd <= 0.0 {
        return (w * (fwd_s - fwd_k)).max(0.0);
    }
    let d1 = (fwd_s / fwd_k).ln() / sd + 0.5 * sd;
    let d2 = d1 - sd;
    let price = match v.option {
        OptionType::Call => fwd_s * norm_cdf(d1) - fwd_k * norm_cdf(d2),
        OptionType::Put => fwd_k * norm_cdf(-d2) - fwd_s * norm_cdf(-d1),
    };
    price.max(0.0)
}
