//! The bump-and-revalue utility on a toy parameter set whose derivatives are known exactly,
//! through both the central and the one-sided (domain edge) differences, forward and backward,
//! with the step shrunk in a narrow admissible interval; and the stencil and domain helpers.

use tenor_pricing::analytic::{
    greeks_by_bump, BumpDomain, BumpParam, BumpSteps, Bumpable, Scheme, Stencil, SHRINK_FLOOR,
};
use tenor_pricing::types::BarrierType;

#[derive(Debug, Clone)]
struct Toy {
    spot: f64,
    vol: f64,
    rate: f64,
    maturity: f64,
}

impl Bumpable for Toy {
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

/// f = S^3 + e^{2 sigma} + sin(r) + T^2 + 3T; refuses vol < 0 and maturity < 0 like a pricer.
fn toy_price(p: &Toy) -> Result<f64, String> {
    if p.vol < 0.0 || p.maturity < 0.0 || p.spot <= 0.0 {
        return Err(format!("out of domain: {p:?}"));
    }
    Ok(p.spot.powi(3) + (2.0 * p.vol).exp() + p.rate.sin() + p.maturity * p.maturity + 3.0 * p.maturity)
}

fn check(p: Toy) {
    let steps = BumpSteps::default();
    let g = greeks_by_bump(toy_price, &p, &steps).expect("in domain");
    let f = toy_price(&p).expect("in domain");
    let h = |q: BumpParam| steps.step(q, p.get(q));
    let exact = [
        ("delta", 3.0 * p.spot * p.spot, g.delta, h(BumpParam::Spot)),
        ("gamma", 6.0 * p.spot, g.gamma, h(BumpParam::Spot) * h(BumpParam::Spot)),
        ("vega", 2.0 * (2.0 * p.vol).exp(), g.vega, h(BumpParam::Vol)),
        ("rho", p.rate.cos(), g.rho, h(BumpParam::Rate)),
        ("theta", -(2.0 * p.maturity + 3.0), g.theta, h(BumpParam::Maturity)),
    ];
    for (name, want, got, divisor) in exact {
        // Step 1e-4 relative: truncation h^2 f'''/6 (central) or h^2 f'''/3 (one-sided), ~1e-8
        // relative here; rounding: a few ulp of f divided by the step (h, or h^2 for gamma).
        let tol = 1e-6 * want.abs().max(1.0) + 8.0 * f64::EPSILON * f.abs() / divisor;
        assert!((got - want).abs() <= tol, "{p:?} {name}: {got} vs exact {want} (tol {tol:e})");
    }
    assert_eq!(g.price, f);
}

#[test]
fn central_differences_inside_the_domain() {
    check(Toy { spot: 2.0, vol: 0.3, rate: 0.05, maturity: 1.5 });
    check(Toy { spot: 150.0, vol: 1.2, rate: -0.02, maturity: 10.0 });
}

#[test]
fn one_sided_differences_at_the_domain_edge() {
    // vol = 0 and maturity = 0: a central step would leave the domain (and the toy refuses it).
    check(Toy { spot: 2.0, vol: 0.0, rate: 0.0, maturity: 0.0 });
    check(Toy { spot: 2.0, vol: 1e-7, rate: 0.01, maturity: 1e-9 });
}

#[test]
fn pricing_errors_propagate() {
    let bad = Toy { spot: -1.0, vol: 0.2, rate: 0.0, maturity: 1.0 };
    assert!(greeks_by_bump(toy_price, &bad, &BumpSteps::default()).is_err());
}

#[test]
fn steps_are_relative_with_floors() {
    let s = BumpSteps::default();
    assert_eq!(s.step(BumpParam::Spot, 200.0), 200.0 * 1e-4);
    assert_eq!(s.step(BumpParam::Vol, 0.0), 0.1 * 1e-4);
    assert_eq!(s.step(BumpParam::Rate, -0.5), 0.5 * 1e-4);
    assert_eq!(s.step(BumpParam::Maturity, 0.0), 1e-4 / 365.0);
}

/// The toy with spot confined to the open interval `(lo, hi)`: its price refuses any spot
/// outside, so a stencil that crossed an end would fail the call.
#[derive(Debug, Clone)]
struct Confined {
    toy: Toy,
    lo: f64,
    hi: f64,
}

impl Bumpable for Confined {
    fn get(&self, p: BumpParam) -> f64 {
        self.toy.get(p)
    }
    fn set(&mut self, p: BumpParam, value: f64) {
        self.toy.set(p, value);
    }
    fn domain(&self, p: BumpParam) -> BumpDomain {
        match p {
            BumpParam::Spot => BumpDomain { lo: self.lo, lo_closed: false, hi: self.hi, hi_closed: false },
            _ => p.domain(),
        }
    }
}

fn confined_price(c: &Confined) -> Result<f64, String> {
    if !(c.toy.spot > c.lo && c.toy.spot < c.hi) {
        return Err(format!("spot {} outside ({}, {})", c.toy.spot, c.lo, c.hi));
    }
    toy_price(&c.toy)
}

/// Delta and gamma of the toy (`S^3`: exact `3 S^2 = 12` and `6 S = 12` at `S = 2`) near either
/// end of the spot interval and in intervals too narrow for the nominal stencil. With
/// `f''' = 6` and `f'''' = 0` the one-sided delta errs by `h^2 f'''/3 = 2 h^2` and the one-sided
/// gamma is exact up to rounding (`~eps |f| sum|w| / h^2`).
#[test]
fn one_sided_spot_differences_stay_inside_the_interval() {
    let steps = BumpSteps::default();
    let toy = Toy { spot: 2.0, vol: 0.3, rate: 0.05, maturity: 1.5 };
    let h = 2.0 * 1e-4;
    // (lo, hi, scheme, step: None = shrunk to the larger room / 6, the reach 3h covering half)
    let cases = [
        (1.0, 3.0, Scheme::Central, Some(h)),
        (1.9999, 1e9, Scheme::Forward, Some(h)),
        (0.0, 2.00001, Scheme::Backward, Some(h)),
        (1.9999, 2.0005, Scheme::Forward, None),
        (1.9995, 2.0001, Scheme::Backward, None),
    ];
    for (lo, hi, scheme, step) in cases {
        let c = Confined { toy: toy.clone(), lo, hi };
        let stencil = Stencil::choose(&c.domain(BumpParam::Spot), 2.0, h, true).expect("a stencil fits");
        let want_h = step.unwrap_or_else(|| (hi - 2.0f64).max(2.0 - lo) / 6.0);
        assert_eq!((stencil.scheme, stencil.h), (scheme, want_h), "({lo}, {hi})");
        assert!(stencil.h >= SHRINK_FLOOR * h);
        assert!(stencil.points(2.0).iter().all(|&x| x > lo && x < hi), "({lo}, {hi}) {stencil:?}");
        let g = greeks_by_bump(confined_price, &c, &steps).expect("no evaluation outside the interval");
        let f = toy_price(&toy).expect("in domain");
        let hs = stencil.h;
        let delta_tol = 2.0 * hs * hs * 1.01 + 100.0 * f64::EPSILON * f / hs;
        let gamma_tol = 200.0 * f64::EPSILON * f / (hs * hs) + 1e-9;
        assert!((g.delta - 12.0).abs() <= delta_tol, "({lo}, {hi}) {stencil:?}: delta {} vs 12", g.delta);
        assert!((g.gamma - 12.0).abs() <= gamma_tol, "({lo}, {hi}) {stencil:?}: gamma {} vs 12", g.gamma);
        // The other parameters are untouched by the spot interval.
        assert!((g.vega - 2.0 * 0.6f64.exp()).abs() <= 1e-6 * 4.0, "vega {}", g.vega);
    }
}

/// An interval narrower than the floor allows: delta and gamma NaN, nothing evaluated outside,
/// the other Greeks unaffected.
#[test]
fn interval_too_narrow_gives_nan() {
    let c = Confined { toy: Toy { spot: 2.0, vol: 0.3, rate: 0.05, maturity: 1.5 }, lo: 2.0 - 1e-7, hi: 2.0 + 1e-7 };
    assert_eq!(Stencil::choose(&c.domain(BumpParam::Spot), 2.0, 2e-4, true), None);
    let g = greeks_by_bump(confined_price, &c, &BumpSteps::default()).expect("no evaluation outside");
    assert!(g.delta.is_nan() && g.gamma.is_nan(), "{g:?}");
    assert!((g.rho - 0.05f64.cos()).abs() <= 1e-6, "{g:?}");
}

/// The backward formulas are the forward ones with `h -> -h`: on a cubic both give the exact
/// second derivative, and the first derivative with the same error `-h^2 f'''/3` (even in `h`;
/// the next term has `f'''' = 0`).
#[test]
fn forward_and_backward_mirror_each_other() {
    let f = |x: f64| x * x * x;
    let x = 2.0;
    for scheme in [Scheme::Forward, Scheme::Backward] {
        let s = Stencil { scheme, h: 0.1, second: true };
        let values: Vec<f64> = s.points(x).into_iter().map(f).collect();
        assert_eq!(values.len(), s.point_count());
        let (d1, d2) = s.derivatives(f(x), &values);
        let d2 = d2.expect("second asked for");
        assert!((d1 - (12.0 - 0.02)).abs() <= 1e-12, "{scheme:?}: {d1}");
        assert!((d2 - 12.0).abs() <= 1e-11, "{scheme:?}: {d2}");
        let first_only = Stencil { second: false, ..s };
        assert_eq!(first_only.point_count(), 2);
        assert_eq!(first_only.derivatives(f(x), &values[..2]).1, None);
    }
}

/// Barrier spot domains: the open alive side while alive, the closed breached side once hit.
#[test]
fn barrier_spot_domains() {
    let d = BumpDomain::barrier_spot(BarrierType::DownOut, 100.0, 95.0);
    assert!(d.contains(95.0 + 1e-12) && !d.contains(95.0) && d.contains(1e300));
    let d = BumpDomain::barrier_spot(BarrierType::UpIn, 100.0, 105.0);
    assert!(d.contains(105.0 - 1e-12) && !d.contains(105.0) && !d.contains(0.0) && d.contains(1e-300));
    let d = BumpDomain::barrier_spot(BarrierType::DownIn, 95.0, 95.0);
    assert!(d.contains(95.0) && !d.contains(95.0 + 1e-12) && !d.contains(0.0));
    let d = BumpDomain::barrier_spot(BarrierType::UpOut, 110.0, 105.0);
    assert!(d.contains(105.0) && d.contains(110.0) && !d.contains(105.0 - 1e-12));
    assert_eq!(BumpParam::Rate.domain(), BumpDomain::ALL);
    assert!(BumpParam::Vol.domain().contains(0.0) && !BumpParam::Spot.domain().contains(0.0));
}
