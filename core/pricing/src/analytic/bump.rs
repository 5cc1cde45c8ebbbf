//! Greeks by bump-and-revalue: finite differences of any pricing function over any parameter
//! set that exposes spot, vol, rate and maturity ([`Bumpable`]).
//!
//! Method (e.g. P. Glasserman, *Monte Carlo Methods in Financial Engineering*, Springer 2004,
//! section 7.1): central differences `f'(x) ~ (f(x+h) - f(x-h)) / 2h` (error `h^2 f'''/6`) and
//! `f''(x) ~ (f(x+h) - 2f(x) + f(x-h)) / h^2` (error `h^2 f''''/12`).
//!
//! Every bumped value must stay in the parameter's admissible interval ([`BumpDomain`], from
//! [`Bumpable::domain`]): the natural domain of the parameter (vol and maturity `>= 0`, spot
//! `> 0`) or, for a contract with a barrier, the side of the barrier the spot is on (a spot bump
//! across the barrier would difference the alive and the knocked state, a jump for knock-ins and
//! a kink for knock-outs). When `x - h` or `x + h` leaves the interval ([`Stencil::choose`]):
//! - the second-order one-sided differences that stay inside are used, forward
//!   `f'(x) ~ (-3f(x) + 4f(x+h) - f(x+2h)) / 2h` (error `h^2 f'''/3`) and
//!   `f''(x) ~ (2f(x) - 5f(x+h) + 4f(x+2h) - f(x+3h)) / h^2` (error `11 h^2 f''''/12`), or the
//!   backward ones (`h -> -h`: `f'(x) ~ (3f(x) - 4f(x-h) + f(x-2h)) / 2h`, the same `f''`
//!   formula in `x - h, x - 2h, x - 3h`); the weights and error terms follow from Taylor
//!   expansion (B. Fornberg, "Generation of finite difference formulas on arbitrarily spaced
//!   grids", *Math. Comp.* 51, 1988, gives them in general);
//! - when neither side has room for the whole stencil (`2h`, or `3h` with a second derivative),
//!   the step shrinks to `h' = room / (2k)` on the roomier side (`room` its distance to the end
//!   of the interval, `k` = 2 or 3 the stencil's reach in steps), so the stencil covers half the
//!   room; below [`SHRINK_FLOOR`] times the nominal step the rounding error (`~ eps |f| / h'^2`
//!   for `f''`) would swamp the result, and the derivatives are NaN instead.
//!
//! Away from the ends the central differences are used with the nominal step, so the results
//! there are bitwise those of plain central differences.
//!
//! For a Monte Carlo pricer the closure must reuse the same random numbers (same seed) for
//! every revaluation (common random numbers; Glasserman section 7.1.2), and the steps should
//! be larger than the defaults here, which suit smooth closed forms.

use crate::types::{BarrierSpec, BarrierType, Greeks, Vanilla};

/// Smallest step, as a fraction of the nominal step, that [`Stencil::choose`] shrinks to when
/// the admissible interval is too narrow for the nominal one-sided stencil. The rounding error
/// of a second derivative, `~ eps |f| / h^2`, is then at most `1e4` times the nominal step's;
/// below the floor the derivatives are reported as NaN rather than evaluated across the end of
/// the interval.
pub const SHRINK_FLOOR: f64 = 1e-2;

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
    /// The natural domain of the parameter: spot `(0, inf)`, vol and maturity `[0, inf)`,
    /// rate the whole real line.
    pub fn domain(self) -> BumpDomain {
        match self {
            Self::Spot => BumpDomain::above(0.0, false),
            Self::Vol | Self::Maturity => BumpDomain::above(0.0, true),
            Self::Rate => BumpDomain::ALL,
        }
    }
}

/// An interval of admissible values of one parameter, each end open or closed (an infinite
/// end is never admissible itself). Bumped values that leave it are never evaluated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BumpDomain {
    /// Lower end (may be `-inf`).
    pub lo: f64,
    /// Whether `lo` itself is admissible.
    pub lo_closed: bool,
    /// Upper end (may be `+inf`).
    pub hi: f64,
    /// Whether `hi` itself is admissible.
    pub hi_closed: bool,
}

impl BumpDomain {
    /// The whole real line.
    pub const ALL: Self = Self { lo: f64::NEG_INFINITY, lo_closed: false, hi: f64::INFINITY, hi_closed: false };

    /// `(lo, inf)` or, when `closed`, `[lo, inf)`.
    pub fn above(lo: f64, closed: bool) -> Self {
        Self { lo, lo_closed: closed, ..Self::ALL }
    }

    /// `(-inf, hi)` or, when `closed`, `(-inf, hi]`.
    pub fn below(hi: f64, closed: bool) -> Self {
        Self { hi, hi_closed: closed, ..Self::ALL }
    }

    /// Whether `x` is admissible (NaN never is).
    pub fn contains(&self, x: f64) -> bool {
        let above_lo = if self.lo_closed { x >= self.lo } else { x > self.lo };
        let below_hi = if self.hi_closed { x <= self.hi } else { x < self.hi };
        above_lo && below_hi
    }

    /// The values admissible in both `self` and `other`.
    pub fn intersect(&self, other: &Self) -> Self {
        let (lo, lo_closed) = match self.lo.partial_cmp(&other.lo) {
            Some(std::cmp::Ordering::Greater) => (self.lo, self.lo_closed),
            Some(std::cmp::Ordering::Less) => (other.lo, other.lo_closed),
            _ => (self.lo, self.lo_closed && other.lo_closed),
        };
        let (hi, hi_closed) = match self.hi.partial_cmp(&other.hi) {
            Some(std::cmp::Ordering::Less) => (self.hi, self.hi_closed),
            Some(std::cmp::Ordering::Greater) => (other.hi, other.hi_closed),
            _ => (self.hi, self.hi_closed && other.hi_closed),
        };
        Self { lo, lo_closed, hi, hi_closed }
    }

    /// The spot interval of a single-barrier contract in the state `spot` is in, intersected
    /// with spot `> 0`: while alive, the open side of the barrier (`(barrier, inf)` down,
    /// `(0, barrier)` up); once breached (`spot` on or beyond the barrier,
    /// [`BarrierType::breached`]), the closed breached side (`(0, barrier]` down,
    /// `[barrier, inf)` up), where the contract is the rebate (out) or the vanilla (in).
    pub fn barrier_spot(barrier_type: BarrierType, spot: f64, barrier: f64) -> Self {
        let breached = barrier_type.breached(spot, barrier);
        let side = match (barrier_type.is_down(), breached) {
            (true, false) => Self::above(barrier, false),
            (true, true) => Self::below(barrier, true),
            (false, false) => Self::below(barrier, false),
            (false, true) => Self::above(barrier, true),
        };
        side.intersect(&BumpParam::Spot.domain())
    }
}

/// Which finite-difference formula a [`Stencil`] uses (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Points `x - h, x + h`.
    Central,
    /// Points `x + h, x + 2h` (and `x + 3h` for a second derivative).
    Forward,
    /// Points `x - h, x - 2h` (and `x - 3h` for a second derivative).
    Backward,
}

/// A finite-difference stencil around a base value `x`: the scheme, the step and whether a
/// second derivative is wanted. [`Stencil::points`] lists the values to price besides `x`;
/// [`Stencil::derivatives`] turns those prices into `f'(x)` and `f''(x)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stencil {
    /// The formula.
    pub scheme: Scheme,
    /// The step actually used, `> 0` (the nominal one, or shrunk).
    pub h: f64,
    /// Whether [`Stencil::derivatives`] must give `f''` (a one-sided `f''` needs a third point).
    pub second: bool,
}

impl Stencil {
    /// The stencil for `x` with nominal step `h` that keeps every point in `domain`: central
    /// when `x +/- h` are admissible, else forward, else backward, else one-sided with the step
    /// shrunk on the roomier side (see the module documentation). `None` when `x` itself is
    /// not admissible, `h` is not finite and `> 0`, or the room is below [`SHRINK_FLOOR`]
    /// times `h`.
    pub fn choose(domain: &BumpDomain, x: f64, h: f64, second: bool) -> Option<Self> {
        if !(domain.contains(x) && h.is_finite() && h > 0.0) {
            return None;
        }
        let fits = |s: Self| s.points(x).iter().all(|&p| domain.contains(p));
        let central = Self { scheme: Scheme::Central, h, second };
        let forward = Self { scheme: Scheme::Forward, ..central };
        let backward = Self { scheme: Scheme::Backward, ..central };
        if let Some(s) = [central, forward, backward].into_iter().find(|&s| fits(s)) {
            return Some(s);
        }
        let reach = if second { 3.0 } else { 2.0 };
        let (room_up, room_down) = (domain.hi - x, x - domain.lo);
        let (scheme, room) =
            if room_up >= room_down { (Scheme::Forward, room_up) } else { (Scheme::Backward, room_down) };
        let shrunk = Self { scheme, h: (room / (2.0 * reach)).min(h), second };
        (shrunk.h >= SHRINK_FLOOR * h && fits(shrunk)).then_some(shrunk)
    }

    /// The values to price besides `x`, in the order [`Stencil::derivatives`] expects.
    pub fn points(&self, x: f64) -> Vec<f64> {
        let h = self.h;
        match (self.scheme, self.second) {
            (Scheme::Central, _) => vec![x + h, x - h],
            (Scheme::Forward, false) => vec![x + h, x + 2.0 * h],
            (Scheme::Forward, true) => vec![x + h, x + 2.0 * h, x + 3.0 * h],
            (Scheme::Backward, false) => vec![x - h, x - 2.0 * h],
            (Scheme::Backward, true) => vec![x - h, x - 2.0 * h, x - 3.0 * h],
        }
    }

    /// How many values [`Stencil::points`] lists (2, or 3 for a one-sided second derivative).
    pub fn point_count(&self) -> usize {
        if self.second && self.scheme != Scheme::Central {
            3
        } else {
            2
        }
    }

    /// `(f'(x), f''(x))` from `base = f(x)` and `values` = `f` at [`Stencil::points`] (in that
    /// order). `f''` is `None` for a one-sided stencil built without `second`; a missing value
    /// counts as NaN.
    pub fn derivatives(&self, base: f64, values: &[f64]) -> (f64, Option<f64>) {
        let f = |i: usize| values.get(i).copied().unwrap_or(f64::NAN);
        let h = self.h;
        match self.scheme {
            Scheme::Central => {
                let (up, down) = (f(0), f(1));
                ((up - down) / (2.0 * h), Some((up - 2.0 * base + down) / (h * h)))
            }
            Scheme::Forward | Scheme::Backward => {
                // Backward = forward in -h: f' changes sign, f'' does not.
                let sign = if self.scheme == Scheme::Forward { 1.0 } else { -1.0 };
                let first = sign * (-3.0 * base + 4.0 * f(0) - f(1)) / (2.0 * h);
                let second = self.second.then(|| (2.0 * base - 5.0 * f(0) + 4.0 * f(1) - f(2)) / (h * h));
                (first, second)
            }
        }
    }
}

/// A parameter set that [`greeks_by_bump`] can bump: read and overwrite spot, vol, rate and
/// maturity, and say which values of each are admissible. Implemented for [`Vanilla`] and
/// [`BarrierSpec`]; other contract types (Asians, Monte Carlo specifications) implement it to
/// get their Greeks the same way.
pub trait Bumpable: Clone {
    /// The current value of `p`.
    fn get(&self, p: BumpParam) -> f64;
    /// Overwrites `p` with `value`.
    fn set(&mut self, p: BumpParam, value: f64);
    /// The interval the bumped values of `p` must stay in: by default the parameter's natural
    /// domain ([`BumpParam::domain`]); a contract whose price is not smooth across some level
    /// (a barrier) narrows it to the side the current value is on.
    fn domain(&self, p: BumpParam) -> BumpDomain {
        p.domain()
    }
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

/// Spot stays on the side of the barrier it is on ([`BumpDomain::barrier_spot`]); vol, rate
/// and maturity keep their natural domains.
impl Bumpable for BarrierSpec {
    fn get(&self, p: BumpParam) -> f64 {
        self.vanilla.get(p)
    }
    fn set(&mut self, p: BumpParam, value: f64) {
        self.vanilla.set(p, value)
    }
    fn domain(&self, p: BumpParam) -> BumpDomain {
        match p {
            BumpParam::Spot => BumpDomain::barrier_spot(self.barrier_type, self.vanilla.spot, self.barrier),
            _ => p.domain(),
        }
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

/// First and (when `second`) second derivatives of `price` with respect to `p` at `params`
/// (base value `base = price(params)` already known), on the [`Stencil`] that keeps every
/// bumped value in [`Bumpable::domain`]; NaN when there is none, or for an `f''` not asked for.
fn derivatives<P, E, F>(price: &F, params: &P, base: f64, p: BumpParam, h: f64, second: bool) -> Result<(f64, f64), E>
where
    P: Bumpable,
    F: Fn(&P) -> Result<f64, E>,
{
    let x = params.get(p);
    let Some(stencil) = Stencil::choose(&params.domain(p), x, h, second) else {
        return Ok((f64::NAN, f64::NAN));
    };
    let values = stencil
        .points(x)
        .into_iter()
        .map(|value| {
            let mut q = params.clone();
            q.set(p, value);
            price(&q)
        })
        .collect::<Result<Vec<f64>, E>>()?;
    let (first, second) = stencil.derivatives(base, &values);
    Ok((first, second.unwrap_or(f64::NAN)))
}

/// Price, delta, gamma, vega, theta and rho of `price` at `params` by finite differences
/// (see the module documentation), in the units of [`Greeks`]: vega per 1.00 of vol, rho per
/// 1.00 of rate, theta per year as calendar time passes (`-dV/dT`, the maturity bump).
/// Nine evaluations of `price` (the base and two per parameter), ten when the spot stencil is
/// one-sided (near a barrier: its gamma needs a third point). A derivative whose admissible
/// interval is too narrow for any stencil ([`Stencil::choose`] gives `None`) is NaN.
///
/// # Errors
/// The first error any evaluation of `price` returns.
pub fn greeks_by_bump<P, E, F>(price: F, params: &P, steps: &BumpSteps) -> Result<Greeks, E>
where
    P: Bumpable,
    F: Fn(&P) -> Result<f64, E>,
{
    let base = price(params)?;
    let d = |p: BumpParam, second: bool| derivatives(&price, params, base, p, steps.step(p, params.get(p)), second);
    let (delta, gamma) = d(BumpParam::Spot, true)?;
    let (vega, _) = d(BumpParam::Vol, false)?;
    let (rho, _) = d(BumpParam::Rate, false)?;
    let (dv_dmaturity, _) = d(BumpParam::Maturity, false)?;
    Ok(Greeks { price: base, delta, gamma, vega, theta: -dv_dmaturity, rho })
}
