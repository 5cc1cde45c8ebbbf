//! Semi-analytic Heston prices by Fourier inversion (Carr & Madan 1999 with the contour shift
//! and optimal damping of Lord & Kahl 2007, "Optimal Fourier inversion in semi-analytical
//! option pricing"; domain transform after Kahl & Jaeckel 2005 / Andersen & Lake 2018).
//!
//! With `F` the forward, `k = ln(K / F)` and `phi` the characteristic function of
//! `ln(S_T / F)` ([`super::cf::log_cf`]), the undiscounted price per unit forward is
//! `R(alpha) + (1/pi) int_0^inf Re[e^{-(alpha + iu) k} phi(u - i(alpha + 1)) /
//! ((alpha + iu)(alpha + 1 + iu))] du`, with residue `R = 0` for `alpha > 0` (the call) and
//! `R = 1 - e^k` for `alpha < -1` (so the integral is the put). The damping `alpha` minimises
//! `Psi(alpha) = -alpha k + ln phi(-i(alpha + 1)) - ln|alpha (alpha + 1)|` over the moments that
//! stay finite to maturity ([`super::cf::critical_moment`]). The integral runs over
//! `x = e^{-c u}` in `(0, 1)` with adaptive Gauss-Kronrod, so there is no truncation of the
//! frequency domain; `c = 20 / u_end`, `u_end` the frequency where `|phi|` reaches `e^{-36}`
//! estimated from its decay (Gaussian `e^{-w u^2 / 2}` with the
//! expected integrated variance `w` at first, exponential at the asymptotic rate
//! `sqrt(1 - rho^2) (v0 + kappa theta T) / sigma`), which keeps short maturities and extreme
//! parameters well resolved.

use nalgebra::Complex;

use super::cf::{critical_moment, log_cf};
use super::quad::integrate;
use super::{HestonError, HestonOption, HestonParams};
use crate::types::OptionType;

/// Largest |alpha| searched.
const ALPHA_CAP: f64 = 500.0;

/// Heston price of `o` (present value, currency units) with the optimal damping.
///
/// # Errors
/// [`HestonError::InvalidParameter`] for bad parameters; [`HestonError::Integration`] or
/// [`HestonError::NonFinite`] if the Fourier integral fails.
pub fn heston_price(p: &HestonParams, o: &HestonOption) -> Result<f64, HestonError> {
    p.validate()?;
    o.validate()?;
    let k = (o.strike / o.forward()).ln();
    let alpha = optimal_alpha(p, o.maturity, k);
    heston_price_with_alpha(p, o, alpha)
}

/// `Psi(alpha)`, the log of the integrand's size at `u = 0`.
pub fn psi(p: &HestonParams, t: f64, k: f64, alpha: f64) -> f64 {
    let m = log_cf(p, t, Complex::new(0.0, -(alpha + 1.0))).re;
    let v = -alpha * k + m - (alpha * (alpha + 1.0)).abs().ln();
    if v.is_finite() {
        v
    } else {
        f64::INFINITY
    }
}

fn golden(f: &dyn Fn(f64) -> f64, mut a: f64, mut b: f64) -> (f64, f64) {
    let r = 0.5 * (5f64.sqrt() - 1.0);
    let mut x1 = b - r * (b - a);
    let mut x2 = a + r * (b - a);
    let (mut f1, mut f2) = (f(x1), f(x2));
    for _ in 0..45 {
        if f1 <= f2 {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - r * (b - a);
            f1 = f(x1);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + r * (b - a);
            f2 = f(x2);
        }
    }
    if f1 <= f2 {
        (x1, f1)
    } else {
        (x2, f2)
    }
}

/// The Lord-Kahl damping: the minimiser of `Psi` on the call side `(0, omega+ - 1)` or the
/// put side `(omega- - 1, -1)`, whichever is smaller.
pub fn optimal_alpha(p: &HestonParams, t: f64, k: f64) -> f64 {
    let hi = (critical_moment(p, t, true, ALPHA_CAP + 1.0) - 1.0).min(ALPHA_CAP);
    let lo = (critical_moment(p, t, false, ALPHA_CAP) - 1.0).max(-ALPHA_CAP);
    let f = |a: f64| psi(p, t, k, a);
    let shrink = |a: f64, b: f64| {
        let e = 1e-6 * (b - a);
        (a + e, b - e)
    };
    let (ca, cb) = shrink(0.0, hi);
    let (pa, pb) = shrink(lo, -1.0);
    let call = golden(&f, ca, cb);
    let put = golden(&f, pa, pb);
    if call.1 <= put.1 {
        call.0
    } else {
        put.0
    }
}

/// Heston price of `o` with damping `alpha` (`alpha > 0`: call contour, `alpha < -1`: put
/// contour; the other option follows from put-call parity `C - P = e^{-rT}(F - K)`).
///
/// # Errors
/// [`HestonError::InvalidParameter`] when `alpha` is in `[-1, 0]` or beyond the finite
/// moments; integration errors as [`heston_price`].
pub fn heston_price_with_alpha(p: &HestonParams, o: &HestonOption, alpha: f64) -> Result<f64, HestonError> {
    p.validate()?;
    o.validate()?;
    if !alpha.is_finite() || (-1.0..=0.0).contains(&alpha) {
        return Err(HestonError::InvalidParameter { name: "alpha", value: alpha, reason: "must be > 0 or < -1" });
    }
    let t = o.maturity;
    let omega = alpha + 1.0;
    if (omega > 1.0 && critical_moment(p, t, true, omega) < omega)
        || (omega < 0.0 && critical_moment(p, t, false, -omega) > omega)
    {
        return Err(HestonError::InvalidParameter {
            name: "alpha",
            value: alpha,
            reason: "moment of order alpha + 1 explodes before maturity",
        });
    }
    let fwd = o.forward();
    let df = o.discount();
    let k = (o.strike / fwd).ln();
    let integral = fourier_integral(p, t, k, alpha)?;
    let call_side = alpha > 0.0;
    // Undiscounted price per unit forward of the option the contour gives.
    let (call, put) =
        if call_side { (integral, integral - (1.0 - k.exp())) } else { (integral + (1.0 - k.exp()), integral) };
    let v = match o.option {
        OptionType::Call => call,
        OptionType::Put => put,
    };
    Ok((df * fwd * v).max(0.0))
}

/// `(1/pi) int_0^inf Re[...] du` on the transformed domain: the price integrand of the module
/// documentation, `e^{-(alpha + iu) k} phi(u - i(alpha + 1)) / ((alpha + iu)(alpha + 1 + iu))`.
fn fourier_integral(p: &HestonParams, t: f64, k: f64, alpha: f64) -> Result<f64, HestonError> {
    inverse_integral(p, t, &|u: f64| {
        let z = Complex::new(u, -(alpha + 1.0));
        let a = Complex::new(alpha, u);
        (-a * k + log_cf(p, t, z), 1.0 / (a * (a + 1.0)), z)
    })
}

/// `(1/pi) int_0^inf Re[e^{E(u)} M(u)] du` for `term(u) = (E(u), M(u), z)`, `E` carrying the
/// log characteristic function at `z` (named when the integrand is not finite), on the
/// transformed domain `x = e^{-c u}` of the module documentation (no cutoff), by adaptive
/// Gauss-Kronrod. Shared by the prices and the payoffs' second moments ([`super::moments`]).
///
/// # Errors
/// [`HestonError::NonFinite`] where the integrand is not finite (an exponent below -700 is
/// an underflow, read as 0); [`HestonError::Integration`] when the error estimate stays above
/// 1e-10.
pub(super) fn inverse_integral(
    p: &HestonParams,
    t: f64,
    term: &dyn Fn(f64) -> (Complex<f64>, Complex<f64>, Complex<f64>),
) -> Result<f64, HestonError> {
    let kt = p.kappa * t;
    let decay = if kt > 1e-8 { (1.0 - (-kt).exp()) / p.kappa } else { t };
    let w = (p.theta * t + (p.v0 - p.theta) * decay).max(1e-300);
    let c_inf = (1.0 - p.rho * p.rho).sqrt() * (p.v0 + p.kappa * p.theta * t) / p.sigma;
    // -ln|phi(u)| grows like min(w u^2 / 2, c_inf u): quadratic first, linear asymptotically;
    // u_end is where it reaches 36.
    let u_end = (72.0 / w).sqrt().max(36.0 / c_inf);
    let c = 20.0 / u_end;
    let mut bad: Option<(f64, f64)> = None;
    let mut f = |x: f64| {
        if x <= 0.0 {
            return 0.0;
        }
        let u = -x.ln() / c;
        let (e, m, z) = term(u);
        let val = (e.exp() * m).re;
        if !val.is_finite() {
            if e.re < -700.0 {
                return 0.0;
            }
            bad.get_or_insert((z.re, z.im));
            return 0.0;
        }
        val / (std::f64::consts::PI * c * x)
    };
    let r = integrate(&mut f, 0.0, 1.0, 1e-14, 1e-11, 4000);
    if let Some((re, im)) = bad {
        return Err(HestonError::NonFinite { re, im });
    }
    if !r.converged && r.error > 1e-10 {
        return Err(HestonError::Integration { estimate: r.error, intervals: r.intervals });
    }
    Ok(r.value)
}
