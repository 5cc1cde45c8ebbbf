//! Levenberg-Marquardt calibration recovers the parameters a synthetic chain was generated
//! with (from a distant starting point), and reports per-quote errors.
use tenor_pricing::heston::{
    calibrate_heston, heston_price, CalibrationConfig, HestonError, HestonOption, HestonParams, Quote,
};
use tenor_pricing::types::OptionType;

#[test]
fn recovers_generating_parameters_from_a_synthetic_chain() {
    let truth = HestonParams { v0: 0.03, kappa: 2.0, theta: 0.05, sigma: 0.6, rho: -0.65 };
    let mut quotes = Vec::new();
    for &t in &[1.0 / 12.0, 0.5, 2.0] {
        for &k in &[80.0, 90.0, 100.0, 110.0, 120.0] {
            let option = if k < 100.0 { OptionType::Put } else { OptionType::Call };
            let o = HestonOption { option, spot: 100.0, strike: k, maturity: t, rate: 0.02, dividend: 0.01 };
            let price = heston_price(&truth, &o).expect("price");
            quotes.push(Quote { contract: o, price, weight: 1.0 });
        }
    }
    let cfg = CalibrationConfig {
        initial: HestonParams { v0: 0.06, kappa: 1.0, theta: 0.03, sigma: 0.3, rho: -0.2 },
        max_iterations: 60,
        tolerance: 1e-14,
    };
    let res = calibrate_heston(&quotes, &cfg).expect("calibration");
    eprintln!("{:?} rmse {:.2e} iterations {} pricings {}", res.params, res.rmse, res.iterations, res.pricings);
    let p = res.params;
    for (name, got, want) in [
        ("v0", p.v0, truth.v0),
        ("kappa", p.kappa, truth.kappa),
        ("theta", p.theta, truth.theta),
        ("sigma", p.sigma, truth.sigma),
        ("rho", p.rho, truth.rho),
    ] {
        assert!((got - want).abs() <= 1e-3 * want.abs().max(0.1), "{name}: {got} vs {want}");
    }
    assert_eq!(res.fits.len(), quotes.len());
    for f in &res.fits {
        assert!(f.error.abs() < 1e-6, "{f:?}");
    }
}

#[test]
fn bad_quote_is_named() {
    let contract =
        HestonOption { option: OptionType::Call, spot: 100.0, strike: 100.0, maturity: 0.5, rate: 0.02, dividend: 0.0 };
    let q = Quote { contract, price: 5.0, weight: 1.0 };
    let bad = Quote { contract: HestonOption { strike: -1.0, ..contract }, ..q };
    let e = calibrate_heston(&[q, bad], &CalibrationConfig::default());
    assert!(matches!(e, Err(HestonError::BadQuote { index: 1, .. })), "{e:?}");
    let e = calibrate_heston(&[Quote { price: f64::NAN, ..q }], &CalibrationConfig::default());
    assert!(matches!(e, Err(HestonError::BadQuote { index: 0, .. })), "{e:?}");
}
