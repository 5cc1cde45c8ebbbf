//! Bump-and-revalue Greeks with common random numbers against the Black-Scholes-Merton closed
//! form written out here by hand (Hull, *Options, Futures and Other Derivatives*, ch. 19), and
//! the put-call parity of the Monte Carlo prices on common random numbers.

use tenor_pricing::analytic::asian::norm_cdf;
use tenor_pricing::mc::{self, McConfig, McProduct};
use tenor_pricing::types::{Greeks, OptionType, Vanilla};

fn bsm(v: &Vanilla) -> Greeks {
    let (s, k, t, r, q, sig) = (v.spot, v.strike, v.maturity, v.rate, v.dividend, v.vol);
    let st = sig * t.sqrt();
    let d1 = ((s / k).ln() + (r - q + 0.5 * sig * sig) * t) / st;
    let d2 = d1 - st;
    let pdf = (-0.5 * d1 * d1).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let (dq, dr) = ((-q * t).exp(), (-r * t).exp());
    let w = v.option.sign();
    let price = w * (s * dq * norm_cdf(w * d1) - k * dr * norm_cdf(w * d2));
    Greeks {
        price,
        delta: w * dq * norm_cdf(w * d1),
        gamma: dq * pdf / (s * st),
        vega: s * dq * pdf * t.sqrt(),
        theta: -s * dq * pdf * sig / (2.0 * t.sqrt())
            + w * (q * s * dq * norm_cdf(w * d1) - r * k * dr * norm_cdf(w * d2)),
        rho: w * k * t * dr * norm_cdf(w * d2),
    }
}

#[test]
fn european_greeks_match_the_closed_form() {
    let dev = tenor_cpu::cpu().expect("cpu");
    let cfg = McConfig { paths: 400_000, seed: 17, ..McConfig::default() };
    for option in [OptionType::Call, OptionType::Put] {
        let v = Vanilla { option, spot: 100.0, strike: 105.0, maturity: 0.8, rate: 0.04, dividend: 0.01, vol: 0.25 };
        let got = mc::price_with_greeks(&dev, &McProduct::European(v), &cfg).expect("price");
        let g = got.greeks.expect("greeks");
        let want = bsm(&v);
        // Tolerances: MC noise of the CRN differences at 4e5 paths plus the O(h^2) bias of the
        // central differences (1 % spot, 0.01 vol, 10 bp rate, one day).
        let checks = [
            ("price", g.price, want.price, 3.0 * got.price.stderr),
            ("delta", g.delta, want.delta, 0.005),
            ("gamma", g.gamma, want.gamma, 0.1 * want.gamma),
            ("vega", g.vega, want.vega, 0.02 * want.vega),
            ("theta", g.theta, want.theta, 0.05 * want.theta.abs()),
            ("rho", g.rho, want.rho, 0.02 * want.rho.abs()),
        ];
        for (name, got, want, tol) in checks {
            assert!((got - want).abs() <= tol, "{option:?} {name}: MC {got} vs closed form {want} (tol {tol})");
        }
    }
}

#[test]
fn put_call_parity_holds_on_common_random_numbers() {
    // With the same normals, C - P = e^{-rT} (S_T - K) averaged over the paths, whose mean
    // is S e^{-qT} - K e^{-rT} up to MC noise of a linear (low-variance) payoff.
    let dev = tenor_cpu::cpu().expect("cpu");
    let cfg = McConfig { paths: 200_000, seed: 23, ..McConfig::default() };
    let v = Vanilla {
        option: OptionType::Call,
        spot: 50.0,
        strike: 48.0,
        maturity: 1.5,
        rate: 0.03,
        dividend: 0.02,
        vol: 0.3,
    };
    let c = mc::price(&dev, &McProduct::European(v), &cfg).expect("call");
    let p = mc::price(&dev, &McProduct::European(Vanilla { option: OptionType::Put, ..v }), &cfg).expect("put");
    let forward = v.spot * (-v.dividend * v.maturity).exp() - v.strike * (-v.rate * v.maturity).exp();
    assert!(
        (c.price - p.price - forward).abs() < 3.0 * (c.stderr + p.stderr),
        "{} - {} vs {forward}",
        c.price,
        p.price
    );
}
