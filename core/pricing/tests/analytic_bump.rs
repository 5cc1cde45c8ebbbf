//! The bump-and-revalue utility on a toy parameter set whose derivatives are known exactly,
//! through both the central and the one-sided (domain edge) differences.

use tenor_pricing::analytic::{greeks_by_bump, BumpParam, BumpSteps, Bumpable};

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
