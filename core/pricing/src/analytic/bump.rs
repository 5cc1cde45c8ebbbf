//! Greeks by bump-and-revalue: finite differences of any pricing function over any parameter
//! set that exposes spot, vol, rate and maturity ([`Bumpable`]).
//!
//! Method (e.g. P. Glasserman, *Monte Carlo Methods in Financial Engineering*, Springer 2004,
//! section 7.1): central differences `f'(x) ~ (f(x+h) - f(x-h)) / 2h` (error `h^2 f'''/6`) and
//! `f''(x) ~ (f(x+h) - 2f(x) + f(x-h)) / h^2` (error `h^2 f''''/12`). When `x - h` would leave
//! the parameter's domain (vol or maturity near 0) the second-order one-sided difference
//! `(-3f(x) + 4f(x+h) - f(x+2h)) / 2h` is used instead.
//!
//! For a Monte Carlo pricer the closure must reuse the same random numbers (same seed) for
//! every revaluation (common random numbers; Glasserman section 7.1.2), and the steps should
//! be larger than the defaults here, which suit smooth closed forms.

use crate::types::{BarrierSpec, Greeks, Vanilla};

/// A parameter that bump-and-revalue can move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BumpParam {
    /// Spot price (currency units); domain `> 0`.
    Spot,
    /// Volatility (per sqrt(year)); domain `>= 0`.
    Vol,
    /// Continuously compounded risk-free rate (per year); any sign.
    Rate,
    /// Time to expiry (years); domain `>= 0`.
    Maturity,
}

impl BumpParam {
    /// Smallest admissible value and whether it is itself admissible (`false` for spot).
    fn lower_bound(self) -> Option<(f64, bool)> {
        match self {
            Self::Spot => Some((0.0, false)),
            Self::Vol | Self::Maturity => Some((0.0, true)),
            Self::Rate => None,
        }
    }

    fn admits(self, x: f64) -> bool {
        match self.lower_bound() {
            Some((lo, true)) => x >= lo,
            Some((lo, false)) => x > lo,
            None => true,
        }
    }
}

/// A parameter set that [`greeks_by_bump`] can bump: read and overwrite spot, vol, rate and
/// maturity. Implemented for [`Vanilla`] and [`BarrierSpec`]; other contract types (Asians,
/// Monte Carlo specifications) implement it to get their Greeks the same way.
pub trait Bumpable: Clone {
    /// The current value of `p`.
    fn get(&self, p: BumpParam) -> f64;
    /// Overwrites `p` with `value`.
    fn set(&mut self, p: BumpParam, value: f64);
}

impl Bumpable for Vanilla {
    fn get(&self, p: BumpParam) -> f64 {
        match p {
            BumpParam::Spot => self.spot,
            BumpParam::Vol => self.vol,
            BumpParam::Rate => self.rate,
            BumpParam::Maturity => self.maturity,
        }
    }
    fn set(&mut self, p: BumpParam, value: f64) {
        match p {
            BumpParam::Spot => self.spot = value,
            BumpParam::Vol => self.vol = value,
            BumpParam::Rate => self.rate = value,
            BumpParam::Maturity => self.maturity = value,
        }
    }
}

impl Bumpable for BarrierSpec {
    fn get(&self, p: BumpParam) -> f64 {
        self.vanilla.get(p)
    }
    fn set(&mut self, p: BumpParam, value: f64) {
        self.vanilla.set(p, value)
    }
}

/// Relative step sizes: the step for parameter `x` is `h = step * max(|x|, floor)`.
///
/// Defaults (`1e-4` for all four, floors: spot none, vol 0.1, rate 0.1, maturity 1/365) keep
/// the truncation error near `1e-8` relative and the rounding error of a smooth double-precision
/// price (`~eps |V| / h^2` for gamma) far below it; they suit closed forms. Monte Carlo with
/// common random numbers wants larger steps (e.g. `1e-2`) because its payoffs are not smooth
/// path by path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BumpSteps {
    /// Relative spot step, used for delta and gamma.
    pub spot: f64,
    /// Relative vol step (floor 0.1, so `h >= 0.1 * vol_step` even at zero vol).
    pub vol: f64,
    /// Relative rate step (floor 0.1 on `|rate|`, so zero rates get a non-zero step).
    pub rate: f64,
    /// Relative maturity step (floor 1/365 years).
    pub maturity: f64,
}

impl Default for BumpSteps {
    fn default() -> Self {
        Self { spot: 1e-4, vol: 1e-4, rate: 1e-4, maturity: 1e-4 }
    }
}

impl BumpSteps {
    /// The absolute step for `p` at value `x`.
    pub fn step(&self, p: BumpParam, x: f64) -> f64 {
        let (rel, floor) = match p {
            BumpParam::Spot => (self.spot, 0.0),
            BumpParam::Vol => (self.vol, 0.1),
            BumpParam::Rate => (self.rate, 0.1),
            BumpParam::Maturity => (self.maturity, 1.0 / 365.0),
        };
        rel * x.abs().max(floor)
    }
}

/// First and second derivatives of `price` with respect to `p` at `params` (base value
/// `base = price(params)` already known). Central differences, or second-order one-sided ones
/// when `x - h` leaves the domain of `p`.
fn derivatives<P, E, F>(price: &F, params: &P, base: f64, p: BumpParam, h: f64) -> Result<(f64, f64), E>
where
    P: Bumpable,
    F: Fn(&P) -> Result<f64, E>,
{
    let x = params.get(p);
    let at = |value: f64| -> Result<f64, E> {
        let mut q = params.clone();
        q.set(p, value);
        price(&q)
    };
    if p.admits(x - h) {
        let (up, down) = (at(x + h)?, at(x - h)?);
        Ok(((up - down) / (2.0 * h), (up - 2.0 * base + down) / (h * h)))
    } else {
        let (up1, up2) = (at(x + h)?, at(x + 2.0 * h)?);
        Ok(((-3.0 * base + 4.0 * up1 - up2) / (2.0 * h), (base - 2.0 * up1 + up2) / (h * h)))
    }
}

/// Price, delta, gamma, vega, theta and rho of `price` at `params` by finite differences
/// (see the module documentation), in the units of [`Greeks`]: vega per 1.00 of vol, rho per
/// 1.00 of rate, theta per year as calendar time passes (`-dV/dT`, the maturity bump).
/// Nine evaluations of `price`: the base and two per parameter.
///
/// # Errors
/// The first error any evaluation of `price` returns.
pub fn greeks_by_bump<P, E, F>(price: F, params: &P, steps: &BumpSteps) -> Result<Greeks, E>
where
    P: Bumpable,
    F: Fn(&P) -> Result<f64, E>,
{
    let base = price(params)?;
    let d = |p: BumpParam| derivatives(&price, params, base, p, steps.step(p, params.get(p)));
    let (delta, gamma) = d(BumpParam::Spot)?;
    let (vega, _) = d(BumpParam::Vol)?;
    let (rho, _) = d(BumpParam::Rate)?;
    let (dv_dmaturity, _) = d(BumpParam::Maturity)?;
    Ok(Greeks { price: base, delta, gamma, vega, theta: -dv_dmaturity, rho })
}
