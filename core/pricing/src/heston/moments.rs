//! Second moments of European payoffs under Heston: what a Monte Carlo estimate of the call or
//! the put would have as variance, and when the call's is infinite.
//!
//! The call payoff `(S_T - K)^+` has a finite second moment only while `E[S_T^2]` is finite,
//! that is before the moment-explosion time of order 2 (Andersen & Piterbarg 2007, "Moment
//! explosions in stochastic volatility models", Finance and Stochastics 11, Prop. 3.1;
//! [`super::cf::explosion_time`]). Past it a simulated call has no standard error worth the
//! name (pfhedge#203: 1.092 +/- 0.110 against 1.807), while the put payoff is bounded by `K`.
//!
//! Before it, the second moments are Fourier integrals (Lewis 2001, "A simple option formula
//! for general jump-diffusion and other exponential Lévy processes", on generalised payoff
//! transforms): with `Y = ln(S_T / F)`, `k = ln(K / F)` and `s = i z`, the payoffs per unit
//! forward squared, `g(y) = ((e^y - e^k)^+)^2` and `h(y) = ((e^k - e^y)^+)^2`, have the
//! transforms `ĝ(z) = int e^{izy} g(y) dy = -2 e^{(2 + s) k} / (s (s + 1)(s + 2))` for
//! `Im z > 2` and `ĥ(z) = +2 e^{(2 + s) k} / (s (s + 1)(s + 2))` for `Im z < 0`, and
//! `E[g(Y)] = (1/pi) int_0^inf Re[ĝ(u + i beta) phi(-u - i beta)] du` on a line `Im z = beta`
//! where both are finite: `2 < beta < omega+` for the call, `omega- < beta < 0` for the put
//! (`omega+-` the critical moments, [`super::cf::critical_moment`]). The integral is
//! [`super::analytic`]'s, on the same transformed domain.

use nalgebra::Complex;

use super::analytic::inverse_integral;
use super::cf::{critical_moment, explosion_time, log_cf};
use super::{HestonError, HestonOption, HestonParams};
use crate::types::OptionType;

/// Largest moment order searched for the contour.
const MOMENT_CAP: f64 = 100.0;

/// Time (years) after which the call payoff's second moment is infinite: the explosion time
/// of `E[S_T^2]` (infinite when it never explodes).
#[must_use]
pub fn call_variance_explosion_time(p: &HestonParams) -> f64 {
    explosion_time(p, 2.0)
}

/// `E[payoff(S_T)^2]` of `o` (undiscounted, currency squared): `+inf` for a call at or past
/// [`call_variance_explosion_time`].
///
/// # Errors
/// [`HestonError::InvalidParameter`] for bad parameters; integration errors as
/// [`super::heston_price`].
pub fn payoff_second_moment(p: &HestonParams, o: &HestonOption) -> Result<f64, HestonError> {
    p.validate()?;
    o.validate()?;
    let t = o.maturity;
    let (beta, sign) = match o.option {
        OptionType::Call => {
            let upper = critical_moment(p, t, true, MOMENT_CAP);
            if upper <= 2.0 || call_variance_explosion_time(p) <= t {
                return Ok(f64::INFINITY);
            }
            // Halfway to the critical moment, at most 3.
            (2.0 + (0.5 * (upper - 2.0)).min(1.0), -2.0)
        }
        OptionType::Put => ((0.5 * critical_moment(p, t, false, MOMENT_CAP)).max(-1.0), 2.0),
    };
    let fwd = o.forward();
    let k = (o.strike / fwd).ln();
    let m = inverse_integral(p, t, &|u: f64| {
        let s = Complex::new(-beta, u);
        let z = Complex::new(-u, -beta);
        ((s + 2.0) * k + log_cf(p, t, z), sign / (s * (s + 1.0) * (s + 2.0)), z)
    })?;
    Ok(fwd * fwd * m.max(0.0))
}

/// Variance of the undiscounted payoff of `o`, `E[payoff^2] - E[payoff]^2` (the mean from
/// [`super::heston_price`]); `+inf` for a call past [`call_variance_explosion_time`].
///
/// # Errors
/// As [`payoff_second_moment`].
pub fn payoff_variance(p: &HestonParams, o: &HestonOption) -> Result<f64, HestonError> {
    let second = payoff_second_moment(p, o)?;
    if second.is_infinite() {
        return Ok(second);
    }
    let mean = super::heston_price(p, o)? / o.discount();
    Ok((second - mean * mean).max(0.0))
}
