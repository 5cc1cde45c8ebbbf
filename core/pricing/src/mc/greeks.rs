//! Greeks by bump-and-revalue with common random numbers: every bumped copy of a product is
//! simulated with the same seed, so the paths (the Philox normals) are the same and most of
//! the Monte Carlo noise cancels in the differences (Glasserman 2004, sec. 7.1).
//!
//! Central differences with these bumps:
//! * spot: `h = 1 %` of spot; delta `(V(S+h) - V(S-h)) / 2h`, gamma `(V(S+h) - 2V + V(S-h)) / h^2`.
//!   For a barrier option the spot bumps stay on the side of the barrier the spot is on
//!   ([`BumpDomain::barrier_spot`]): when `S - h` or `S + h` would cross the barrier, the
//!   second-order one-sided differences pointing away from it are used instead (points
//!   `S +/- h, S +/- 2h, S +/- 3h`; one more revaluation), with `h` shrunk if even those would
//!   cross ([`Stencil::choose`], [`crate::analytic::bump`] gives the formulas); otherwise delta
//!   and gamma would difference the alive and the knocked state;
//! * vol: `h = min(0.01, vol / 2)` (one vol point, less for a vol below two points so `vol - h`
//!   stays positive); vega per 1.00 of vol. For a Heston option the vol is the initial
//!   volatility `sqrt(v0)` ([`McArguments::shift_vol`]), as in the book's semi-analytic Heston rows;
//! * rate: `h = 0.001` (10 bp); rho per 1.00 of rate;
//! * time: `h = min(1 day = 1/365, T/2, first fixing/2)`; theta `= -(V(T+h) - V(T-h)) / 2h`
//!   per year as calendar time passes. For an Asian the exercise date and every future fixing
//!   move by `h` (today's spot stays a fixing when it is one).
//!
//! The differences of discontinuous payoffs (discrete barriers) are noisier; the standard
//! error of the price is that of the unbumped estimate.

use super::product::McArguments;
use super::McPrice;
use crate::analytic::bump::Stencil;
use crate::types::Greeks;

/// Spot bump, relative.
pub const SPOT_BUMP: f64 = 0.01;
/// Vol bump, absolute.
pub const VOL_BUMP: f64 = 0.01;
/// Rate bump, absolute.
pub const RATE_BUMP: f64 = 0.001;
/// Largest time bump, years (one day, ACT/365F).
pub const TIME_BUMP: f64 = 1.0 / 365.0;

/// The bump sizes for one product.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bumps {
    /// Spot stencil (its `h` is the absolute spot bump); `None` when no stencil fits on the
    /// spot's side of a barrier (delta and gamma are then NaN).
    pub spot: Option<Stencil>,
    /// Absolute vol bump: [`VOL_BUMP`], or half the vol when that is smaller.
    pub vol: f64,
    /// Absolute rate bump.
    pub rate: f64,
    /// Time bump in years.
    pub time: f64,
}

impl Bumps {
    /// The bumps for `p` (see the module documentation).
    pub fn for_product<P: McArguments>(p: &P) -> Self {
        let v = p.vanilla();
        let time = p.time_bump(TIME_BUMP.min(0.5 * v.maturity));
        let spot = Stencil::choose(&p.spot_domain(), v.spot, SPOT_BUMP * v.spot, true);
        Self { spot, vol: VOL_BUMP.min(0.5 * v.vol), rate: RATE_BUMP, time }
    }

    /// The product followed by its bumped copies: the spot stencil's points (two, or three when
    /// one-sided; none without a stencil), then vol +/-, rate +/-, time +/-.
    pub fn products<P: McArguments>(&self, p: &P) -> Vec<P> {
        let with = |f: &dyn Fn(&mut P)| {
            let mut q = *p;
            f(&mut q);
            q
        };
        let spots = self.spot.map_or_else(Vec::new, |s| s.points(p.vanilla().spot));
        let mut out = vec![*p];
        out.extend(spots.into_iter().map(|x| with(&|q| q.vanilla_mut().spot = x)));
        out.extend([
            with(&|q| q.shift_vol(self.vol)),
            with(&|q| q.shift_vol(-self.vol)),
            with(&|q| q.vanilla_mut().rate += self.rate),
            with(&|q| q.vanilla_mut().rate -= self.rate),
            with(&|q| q.shift_time(self.time)),
            with(&|q| q.shift_time(-self.time)),
        ]);
        out
    }

    /// The Greeks from the prices in the order of [`Bumps::products`].
    pub fn greeks(&self, v: &[McPrice]) -> Greeks {
        let p = |i: usize| v.get(i).map_or(f64::NAN, |x| x.price);
        let n = self.spot.map_or(0, |s| s.point_count());
        let (delta, gamma) = self.spot.map_or((f64::NAN, f64::NAN), |s| {
            let values: Vec<f64> = (1..=n).map(p).collect();
            let (first, second) = s.derivatives(p(0), &values);
            (first, second.unwrap_or(f64::NAN))
        });
        Greeks {
            price: p(0),
            delta,
            gamma,
            vega: (p(n + 1) - p(n + 2)) / (2.0 * self.vol),
            rho: (p(n + 3) - p(n + 4)) / (2.0 * self.rate),
            theta: -(p(n + 5) - p(n + 6)) / (2.0 * self.time),
        }
    }
}
