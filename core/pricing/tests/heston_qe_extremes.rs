//! Heston QE Monte Carlo at extreme but valid parameters (issue 20's break test): a fast mean
//! reversion (`kappa` 100 and 1000, where one 64-step grid step has `kappa dt` up to 15.6) is cut
//! into QE sub-steps and lands within 3 standard errors of the semi-analytic price (Fourier
//! inversion, an independent method); a call at `v0 = theta = 100` is priced through its put
//! (it came out 0 with a standard error of 0 against 99.9999); a variance the scheme cannot
//! square (`v0` 1e300) is a typed error naming `v0`, never a silent 0; a Heston row over the
//! book's work limit is told what its sub-steps make of `--steps` and what helps.
use tenor_pricing::heston::{heston_price, HestonOption, HestonParams};
use tenor_pricing::mc::{self, HestonMcOption, McConfig, McError, McProduct, QE_MAX_KAPPA_DT};
use tenor_pricing::types::{OptionType, Vanilla};

fn option(option: OptionType) -> HestonOption {
    HestonOption { option, spot: 100.0, strike: 100.0, maturity: 1.0, rate: 0.03, dividend: 0.0 }
}

fn product(o: &HestonOption, p: HestonParams) -> McProduct {
    let vanilla = Vanilla {
        option: o.option,
        spot: o.spot,
        strike: o.strike,
        maturity: o.maturity,
        rate: o.rate,
        dividend: o.dividend,
        vol: f64::NAN,
    };
    McProduct::Heston(HestonMcOption::new(vanilla, p))
}

fn book_cfg(paths: u64) -> McConfig {
    McConfig { paths, seed: 42, steps: 64, ..McConfig::default() }
}

#[test]
fn fast_mean_reversion_is_sub_stepped_and_matches_the_semi_analytic_price() {
    let dev = tenor_cpu::cpu().expect("cpu");
    for kappa in [100.0, 1000.0] {
        let p = HestonParams { v0: 0.09, kappa, theta: 0.04, sigma: 1.0, rho: -0.7 };
        for kind in [OptionType::Put, OptionType::Call] {
            let o = option(kind);
            let truth = heston_price(&p, &o).expect("semi-analytic");
            let q = product(&o, p);
            if let McProduct::Heston(h) = &q {
                let sub = h.substeps(64);
                assert!(kappa / (64.0 * f64::from(sub)) <= QE_MAX_KAPPA_DT, "kappa {kappa}: {sub} sub-steps");
                assert!(kappa / (64.0 * f64::from(sub - 1).max(0.5)) > QE_MAX_KAPPA_DT, "the fewest sub-steps");
            }
            // kappa 1000: 63 sub-steps of the 64 steps, 4032 QE steps a path.
            let paths = if kappa > 500.0 { 40_000 } else { 100_000 };
            let r = mc::price(&dev, &q, &book_cfg(paths)).expect("priced");
            eprintln!("kappa {kappa} {kind:?}: QE {:.5} +- {:.5}, semi-analytic {truth:.5}", r.price, r.stderr);
            assert!(r.stderr > 0.0, "kappa {kappa} {kind:?}: {r:?}");
            assert!((r.price - truth).abs() <= 3.0 * r.stderr, "kappa {kappa} {kind:?}: {r:?} vs {truth}");
        }
    }
}

#[test]
fn a_call_at_variance_100_is_priced_through_its_put() {
    let dev = tenor_cpu::cpu().expect("cpu");
    let p = HestonParams { v0: 100.0, kappa: 2.0, theta: 100.0, sigma: 1.0, rho: -0.5 };
    let o = option(OptionType::Call);
    let truth = heston_price(&p, &o).expect("semi-analytic");
    assert!(truth > 99.99, "the semi-analytic call {truth}");
    let r = mc::price(&dev, &product(&o, p), &book_cfg(20_000)).expect("priced");
    eprintln!("v0 = theta = 100 call: QE {:.6} +- {:.2e}, semi-analytic {truth:.6}", r.price, r.stderr);
    // The put's paths end near 0 (total variance 100), so its payoff is K e^{-rT} on almost all
    // of them and the standard error is tiny; both methods are then at their edge (the
    // semi-analytic price is the forward minus a Fourier integral of size 1e-4): agreement to
    // 1e-5 of the price is asked, where the call simulated as it was priced 0.
    assert!((r.price - truth).abs() <= 3.0 * r.stderr + 1e-5 * truth, "{r:?} vs {truth}");
}

#[test]
fn a_variance_the_scheme_cannot_square_is_a_typed_error_naming_it() {
    let dev = tenor_cpu::cpu().expect("cpu");
    for (name, p) in [
        ("v0", HestonParams { v0: 1e300, kappa: 2.0, theta: 0.04, sigma: 0.5, rho: -0.5 }),
        ("theta", HestonParams { v0: 0.04, kappa: 2.0, theta: 1e300, sigma: 0.5, rho: -0.5 }),
    ] {
        for kind in [OptionType::Put, OptionType::Call] {
            let e = mc::price(&dev, &product(&option(kind), p), &book_cfg(2_000));
            assert!(
                matches!(&e, Err(McError::InvalidParameter { parameter, .. }) if *parameter == name),
                "{name}: {e:?}"
            );
        }
    }
}

#[test]
fn a_heston_row_over_the_work_limit_names_its_sub_steps_and_what_helps() {
    use tenor_pricing::portfolio::{parse_portfolio, price_book, BookConfig, Engine, PriceError, MAX_ROW_PATH_STEPS};
    // kappa 1000, T 1: a path needs kappa T / 0.25 = 4000 QE steps at least; on 64 steps that is
    // 63 sub-steps each (1000 / (64 x 63) <= 0.25 < 1000 / (64 x 62)), 4032 a path.
    let book = "id,kind,type,spot,strike,maturity,rate,dividend,v0,kappa,theta,xi,rho\n\
                h,heston,call,100,100,1,0.03,0,0.09,1000,0.04,1,-0.7\n";
    let trades = parse_portfolio(book.as_bytes(), std::path::Path::new("h.csv")).expect("readable").trades;
    let cpu = tenor_cpu::cpu().expect("cpu");
    let refused = |steps: u32, paths: u64, greeks: bool| {
        let cfg = BookConfig { engine: Engine::Mc, paths, steps, greeks, ..BookConfig::default() };
        match price_book(&cpu, &trades, &cfg, &mut |_| {}).remove(0) {
            Err(e @ PriceError::TooMuchHestonWork { .. }) => e,
            other => panic!("steps {steps}, paths {paths}, greeks {greeks}: not refused as Heston work: {other:?}"),
        }
    };
    let e = refused(64, 100_000, true);
    let PriceError::TooMuchHestonWork { path_steps, substeps, min_substeps, valuations, .. } = e else {
        unreachable!("matched above")
    };
    assert_eq!((substeps, min_substeps, valuations), (63, 4000, 9));
    assert_eq!(path_steps, 100_000 * 64 * 63 * 9);
    assert!(path_steps > MAX_ROW_PATH_STEPS);
    let message = e.to_string();
    eprintln!("{message}");
    for part in [
        "100000 paths x 4032 QE sub-steps per path (64 steps x 63 sub-steps each, so that kappa dt <= 0.25) x 9 valuations",
        "lower --paths or use --no-greeks",
        "fewer --steps cannot take a path under 4000 sub-steps",
    ] {
        assert!(message.contains(part), "{message:?} lacks {part:?}");
    }
    assert!(!message.contains("lower --paths, --steps"), "{message}");
    // One step is no cheaper than the 4000 sub-steps the mean reversion needs.
    let one = refused(1, 100_000, true).to_string();
    assert!(one.contains("4000 QE sub-steps per path (1 steps x 4000 sub-steps each"), "{one}");
    // Without Greeks one valuation counts (still over the limit at 300,000 paths).
    let bare = refused(64, 300_000, false).to_string();
    assert!(
        bare.contains(&format!("{} simulated path-steps", 300_000u64 * 4032)) && bare.contains("x 1 valuations"),
        "{bare}"
    );
}

#[test]
fn vanishing_vol_of_variance_matches_its_black_scholes_limit() {
    // Issue 29's sibling of the semi-analytic small-xi defect, in the QE step: the log-spot
    // increment formed the terms -+ rho v / sigma of K1 v and K2 v_next and let them cancel,
    // so below xi about 1e-13 the paths carried rounding divided by xi (xi 1e-14: put 7.94 for
    // 8.65, 28 standard errors off; 1e-100: 97.04 +- 1e-7), and below 1e-154 sigma^2 underflowed
    // (0 +- 0). Each price must be within 4 standard errors of the semi-analytic price (the
    // Black-Scholes price with the integrated variance, to within 1e-12 here), with a standard
    // error of a real sample.
    let dev = tenor_cpu::cpu().expect("cpu");
    for xi in [1e-14, 1e-100, 1e-300] {
        let p = HestonParams { v0: 0.09, kappa: 1.5, theta: 0.04, sigma: xi, rho: -0.7 };
        for kind in [OptionType::Put, OptionType::Call] {
            let o = option(kind);
            let truth = heston_price(&p, &o).expect("semi-analytic");
            let r = mc::price(&dev, &product(&o, p), &book_cfg(100_000)).expect("priced");
            assert!(r.stderr > 0.01, "xi {xi:e} {kind:?}: {} +- {}", r.price, r.stderr);
            assert!(
                (r.price - truth).abs() < 4.0 * r.stderr,
                "xi {xi:e} {kind:?}: {} +- {} vs {truth}",
                r.price,
                r.stderr
            );
            let q = tenor_pricing::heston::heston_qe_price(&dev, &p, &o, &tenor_pricing::heston::QeConfig::default())
                .expect("terminal spots");
            assert!(q.std_error > 0.01, "xi {xi:e} {kind:?}: heston_qe {q:?}");
            assert!((q.price - truth).abs() < 4.0 * q.std_error, "xi {xi:e} {kind:?}: heston_qe {q:?} vs {truth}");
        }
    }
}
