//! Levenberg-Marquardt calibration recovers the parameters a synthetic chain was generated
//! with (prices from the adaptive host pricer, an independent method from the kernel that
//! prices the calibration's batches on the port), from a distant starting point, and reports
//! per-quote errors; the host path (rayon, adaptive pricer) recovers them too.
use tenor_pricing::heston::{
    calibrate_heston, calibrate_heston_host, heston_price, CalibrationConfig, HestonError, HestonOption, HestonParams,
    Quote, Stop,
};
use tenor_pricing::types::OptionType;

fn chain(truth: &HestonParams) -> Vec<Quote> {
    let mut quotes = Vec::new();
    for &t in &[1.0 / 52.0, 1.0 / 12.0, 0.5, 2.0] {
        for &k in &[80.0, 90.0, 100.0, 110.0, 120.0] {
            let option = if k < 100.0 { OptionType::Put } else { OptionType::Call };
            let o = HestonOption { option, spot: 100.0, strike: k, maturity: t, rate: 0.02, dividend: 0.01 };
            let price = heston_price(truth, &o).expect("price");
            quotes.push(Quote { contract: o, price, weight: 1.0 });
        }
    }
    quotes
}

fn config() -> CalibrationConfig {
    CalibrationConfig {
        initial: HestonParams { v0: 0.06, kappa: 1.0, theta: 0.03, sigma: 0.3, rho: -0.2 },
        max_iterations: 60,
        tolerance: 1e-14,
        ..CalibrationConfig::default()
    }
}

fn assert_recovered(res: &tenor_pricing::heston::CalibrationResult, truth: &HestonParams, quotes: &[Quote], tol: f64) {
    let p = res.params;
    for (name, got, want) in [
        ("v0", p.v0, truth.v0),
        ("kappa", p.kappa, truth.kappa),
        ("theta", p.theta, truth.theta),
        ("sigma", p.sigma, truth.sigma),
        ("rho", p.rho, truth.rho),
    ] {
        assert!((got - want).abs() <= tol * want.abs().max(0.1), "{name}: {got} vs {want}");
    }
    assert_eq!(res.fits.len(), quotes.len());
    for (f, q) in res.fits.iter().zip(quotes) {
        assert_eq!(f.quote, *q);
        assert!(f.error.abs() < 1e-6, "{f:?}");
        assert!((f.model - f.quote.price - f.error).abs() < 1e-12, "{f:?}");
    }
}

#[test]
fn recovers_generating_parameters_from_a_synthetic_chain_on_the_port() {
    let truth = HestonParams { v0: 0.03, kappa: 2.0, theta: 0.05, sigma: 0.6, rho: -0.65 };
    let quotes = chain(&truth);
    let dev = tenor_cpu::cpu().expect("cpu backend");
    let res = calibrate_heston(&dev, &quotes, &config()).expect("calibration");
    eprintln!(
        "{:?} rmse {:.2e} iterations {} pricings {} launches {}",
        res.params, res.rmse, res.iterations, res.pricings, res.batches
    );
    // The kernel's quadrature differs from the host pricer by under 1e-9 here, so the fit
    // reaches the generating parameters to 1e-6 relative.
    assert_recovered(&res, &truth, &quotes, 1e-6);
    assert_ne!(res.stop, Stop::IterationLimit, "{res:?}");
    // One launch per Jacobian (five bumped sets together) and one per trial point.
    assert!(res.batches <= 1 + res.iterations * 21 && res.batches > res.iterations, "{res:?}");
    assert_eq!(res.pricings, res.batches * quotes.len() + 4 * res.iterations * quotes.len());
}

#[test]
fn recovers_generating_parameters_on_the_host() {
    let truth = HestonParams { v0: 0.04, kappa: 1.2, theta: 0.06, sigma: 0.9, rho: -0.75 };
    let quotes = chain(&truth);
    let res = calibrate_heston_host(&quotes, &config()).expect("calibration");
    assert_recovered(&res, &truth, &quotes, 1e-3);
}

#[test]
fn bad_quote_is_named() {
    let contract =
        HestonOption { option: OptionType::Call, spot: 100.0, strike: 100.0, maturity: 0.5, rate: 0.02, dividend: 0.0 };
    let q = Quote { contract, price: 5.0, weight: 1.0 };
    let bad = Quote { contract: HestonOption { strike: -1.0, ..contract }, ..q };
    let dev = tenor_cpu::cpu().expect("cpu backend");
    let e = calibrate_heston(&dev, &[q, bad], &CalibrationConfig::default());
    assert!(matches!(e, Err(HestonError::BadQuote { index: 1, .. })), "{e:?}");
    let e = calibrate_heston_host(&[q, bad], &CalibrationConfig::default());
    assert!(matches!(e, Err(HestonError::BadQuote { index: 1, .. })), "{e:?}");
    let e = calibrate_heston(&dev, &[Quote { price: f64::NAN, ..q }], &CalibrationConfig::default());
    assert!(matches!(e, Err(HestonError::BadQuote { index: 0, .. })), "{e:?}");
}

#[test]
fn running_out_of_iterations_is_reported() {
    let truth = HestonParams { v0: 0.03, kappa: 2.0, theta: 0.05, sigma: 0.6, rho: -0.65 };
    let quotes = chain(&truth);
    let dev = tenor_cpu::cpu().expect("cpu backend");
    // Two iterations from the distant start cannot converge (the full run needs many more).
    let res = calibrate_heston(&dev, &quotes, &CalibrationConfig { max_iterations: 2, ..config() }).expect("runs");
    assert_eq!(res.iterations, 2);
    assert_eq!(res.stop, Stop::IterationLimit, "{res:?}");
    assert!(res.rmse > 1e-6, "{res:?}");
}
