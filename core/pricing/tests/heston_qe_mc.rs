//! Heston QE Monte Carlo in the book (issue 20): `McProduct::Heston` priced by the fused
//! `heston_qe_mc` kernel, many of them (and their bumped copies for Greeks) in one
//! `heston_qe_batch` launch per stream, bitwise the per-product launches on the CPU backend and
//! on the simulated device; the price within four standard errors of the semi-analytic price
//! (an independent method: Fourier inversion of the characteristic function, `heston_price`);
//! `tenor price --engine mc` routes Heston rows to it and says `mc` in the method column.
use std::path::Path;

use tenor_conformance::compute::Counting;
use tenor_pricing::heston::{heston_price, HestonOption, HestonParams};
use tenor_pricing::mc::{self, HestonMcOption, McConfig, McProduct, McValuation};
use tenor_pricing::portfolio::{parse_portfolio, price_book, BookConfig, Engine};
use tenor_pricing::types::{OptionType, Vanilla};

/// (option, spot, strike, maturity, rate, dividend, v0, kappa, theta, sigma, rho).
type Case = (OptionType, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64);

/// Calls and puts in and out of the money; sigma from 0.3 (quadratic branch only) to 1.0
/// (psi above 1.5 near v = theta, the exponential branch), rho of both signs, an index level.
const CASES: [Case; 6] = [
    (OptionType::Call, 100.0, 100.0, 1.0, 0.03, 0.01, 0.04, 1.5, 0.04, 0.5, -0.7),
    (OptionType::Put, 100.0, 110.0, 2.0, 0.02, 0.0, 0.09, 2.0, 0.06, 1.0, -0.5),
    (OptionType::Call, 52.0, 50.0, 0.5, 0.05, 0.02, 0.09, 2.0, 0.06, 0.3, -0.3),
    (OptionType::Put, 100.0, 90.0, 1.5, 0.01, 0.03, 0.0225, 3.0, 0.04, 0.6, 0.2),
    (OptionType::Call, 6711.2, 6800.0, 0.25, 0.04, 0.012, 0.02, 4.0, 0.03, 0.8, -0.8),
    (OptionType::Call, 100.0, 130.0, 1.0, 0.0, 0.0, 0.04, 1.0, 0.04, 1.0, -0.9),
];

fn product(c: &Case) -> McProduct {
    let &(option, spot, strike, maturity, rate, dividend, v0, kappa, theta, sigma, rho) = c;
    let vanilla = Vanilla { option, spot, strike, maturity, rate, dividend, vol: f64::NAN };
    McProduct::Heston(HestonMcOption::new(vanilla, HestonParams { v0, kappa, theta, sigma, rho }))
}

fn semi_analytic(c: &Case) -> f64 {
    let &(option, spot, strike, maturity, rate, dividend, v0, kappa, theta, sigma, rho) = c;
    heston_price(
        &HestonParams { v0, kappa, theta, sigma, rho },
        &HestonOption { option, spot, strike, maturity, rate, dividend },
    )
    .expect("semi-analytic price")
}

fn bits(v: &McValuation) -> Vec<u64> {
    let mut out = vec![v.price.price.to_bits(), v.price.stderr.to_bits(), v.price.paths];
    if let Some(g) = &v.greeks {
        out.extend([g.delta, g.gamma, g.vega, g.theta, g.rho].iter().map(|x| x.to_bits()));
    }
    out
}

/// An odd pair count over three blocks of 4096 (the last one partial), 24 steps.
fn cfg(streams: usize) -> McConfig {
    McConfig { paths: 2 * 9_001, seed: 11, steps: 24, streams, ..McConfig::default() }
}

fn alone(dev: &dyn tenor_ports::Compute, products: &[McProduct], greeks: bool) -> Vec<Vec<u64>> {
    products
        .iter()
        .map(|p| {
            let v = if greeks {
                mc::price_with_greeks(dev, p, &cfg(1)).expect("alone")
            } else {
                McValuation { price: mc::price(dev, p, &cfg(1)).expect("alone"), greeks: None }
            };
            bits(&v)
        })
        .collect()
}

#[test]
fn heston_products_price_bitwise_as_alone_in_one_batch_launch_on_cpu() {
    let dev = Counting::cpu().expect("cpu");
    let products: Vec<McProduct> = CASES.iter().map(product).collect();
    let want = alone(&dev, &products, false);
    assert_eq!(dev.take_kernels(), vec!["heston_qe_mc"; products.len()], "alone: one heston_qe_mc launch each");
    let got = mc::price_batch(&dev, &products, &cfg(1), false).expect("batch");
    assert_eq!(dev.take_kernels(), vec!["heston_qe_batch"], "batch: one launch for all six");
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(&bits(g.as_ref().expect("priced")), w, "product {k}");
    }
}

#[test]
fn greeks_keep_their_bits_with_one_batch_per_stream_on_cpu_and_sim() {
    let dev = Counting::cpu().expect("cpu");
    let products: Vec<McProduct> = CASES.iter().map(product).collect();
    let want = alone(&dev, &products, true);
    dev.take_kernels();
    let got = mc::price_batch(&dev, &products, &cfg(2), true).expect("batch");
    // Each stream's three trades and their eight bumped copies each: one launch per stream.
    assert_eq!(dev.take_kernels(), vec!["heston_qe_batch"; 2], "one batch per stream");
    let sim = tenor_sim::sim(tenor_sim::SimConfig::default()).expect("sim");
    let on_sim = mc::price_batch(&sim, &products, &cfg(3), true).expect("sim batch");
    for (k, ((g, s), w)) in got.iter().zip(&on_sim).zip(&want).enumerate() {
        let g = g.as_ref().expect("priced");
        assert!(g.greeks.is_some(), "Greeks asked for");
        assert_eq!(&bits(g), w, "cpu, product {k}");
        assert_eq!(&bits(s.as_ref().expect("sim priced")), w, "sim, product {k}");
    }
}

#[test]
fn qe_price_is_within_four_standard_errors_of_the_semi_analytic_price() {
    let dev = tenor_cpu::cpu().expect("cpu");
    let products: Vec<McProduct> = CASES.iter().map(product).collect();
    let config = McConfig { paths: 200_000, seed: 2026, steps: 64, ..McConfig::default() };
    let got = mc::price_batch(&dev, &products, &config, false).expect("batch");
    for (c, r) in CASES.iter().zip(&got) {
        let p = r.as_ref().expect("priced").price;
        let exact = semi_analytic(c);
        eprintln!(
            "{c:?}: QE {} +/- {} vs {exact}: {:+.2} standard errors",
            p.price,
            p.stderr,
            (p.price - exact) / p.stderr
        );
        assert!(p.stderr > 0.0 && p.stderr < 0.01 * exact.max(1.0), "{c:?}: stderr {}", p.stderr);
        assert!(
            (p.price - exact).abs() <= 4.0 * p.stderr,
            "{c:?}: QE {} +/- {} vs semi-analytic {exact} ({:.2} standard errors)",
            p.price,
            p.stderr,
            (p.price - exact) / p.stderr
        );
    }
}

#[test]
fn a_bad_heston_parameter_is_a_typed_error_naming_it() {
    let dev = tenor_cpu::cpu().expect("cpu");
    let mut p = product(&CASES[0]);
    if let McProduct::Heston(h) = &mut p {
        h.params.rho = 1.0;
    }
    match mc::price(&dev, &p, &cfg(1)) {
        Err(mc::McError::InvalidParameter { parameter: "rho", value, .. }) => assert_eq!(value, 1.0),
        other => panic!("want an invalid rho, got {other:?}"),
    }
    let f32 = McConfig { precision: tenor_ports::Precision::F32, ..cfg(1) };
    assert!(matches!(mc::price(&dev, &product(&CASES[0]), &f32), Err(mc::McError::Unsupported(_))));
}

const HEADER: &str =
    "id,kind,type,spot,strike,maturity,rate,dividend,vol,barrier,barrier_type,rebate,fixings,v0,kappa,theta,xi,rho\n";

/// The book under `Engine::Mc` prices Heston rows by QE Monte Carlo (`method` mc, the backend's
/// name, a standard error) within four standard errors of the default engine's semi-analytic
/// rows (`analytic`, `host`), with Greeks near the semi-analytic ones (vega against `sqrt(v0)`
/// on both paths).
#[test]
fn the_book_prices_heston_by_qe_under_engine_mc_and_semi_analytically_by_default() {
    let mut text = HEADER.to_owned();
    text += "h1,heston,call,100,100,1,0.03,0.01,,,,,,0.04,1.5,0.04,0.5,-0.7\n";
    text += "h2,heston,put,100,110,2,0.02,0,0.3,,,,,0.09,2,0.06,1,-0.5\n";
    let trades = parse_portfolio(text.as_bytes(), Path::new("heston.csv")).expect("readable").trades;
    assert_eq!(trades.len(), 2);
    let dev = tenor_cpu::cpu().expect("cpu");
    let base = BookConfig { paths: 200_000, seed: 3, steps: 64, greeks: true, ..BookConfig::default() };
    let exact = price_book(&dev, &trades, &base, &mut |_| {});
    let qe = price_book(&dev, &trades, &BookConfig { engine: Engine::Mc, ..base }, &mut |_| {});
    for (a, m) in exact.iter().zip(&qe) {
        let (a, m) = (a.as_ref().expect("analytic row"), m.as_ref().expect("mc row"));
        assert_eq!((a.method.as_str(), a.backend.as_str(), a.stderr), ("analytic", "host", None), "{a:?}");
        assert_eq!((m.method.as_str(), m.backend.as_str()), ("mc", "cpu"), "{m:?}");
        let se = m.stderr.expect("a Monte Carlo row has a standard error");
        assert!((m.price - a.price).abs() <= 4.0 * se, "{}: QE {} +/- {se} vs {}", m.id, m.price, a.price);
        let d = |x: Option<f64>| x.expect("greek");
        assert!((d(m.delta) - d(a.delta)).abs() < 0.01, "{}: delta {:?} vs {:?}", m.id, m.delta, a.delta);
        let vega = (d(m.vega) - d(a.vega)).abs() / d(a.vega).abs();
        assert!(vega < 0.05, "{}: vega {:?} vs {:?}", m.id, m.vega, a.vega);
    }
}

/// The allocations per book (`BookTimes::allocations`, counted by the port's `Counted` wrapper)
/// against a hand count: batched, one chunk on one stream is one partials buffer (2 values per
/// block, B blocks per product) and one upload per parameter column (10 of f64, 2 of u32);
/// per job, one partials buffer per trade.
#[test]
fn allocations_per_book_are_counted_by_hand() {
    use tenor_pricing::portfolio::{price_book_timed, BookRun};
    let mut text = HEADER.to_owned();
    for k in 0..5 {
        text += &format!("h{k},heston,call,100,{},1,0.03,0.01,,,,,,0.04,1.5,0.04,0.5,-0.7\n", 90 + 5 * k);
    }
    let trades = parse_portfolio(text.as_bytes(), Path::new("heston.csv")).expect("readable").trades;
    let dev = tenor_cpu::cpu().expect("cpu");
    let config =
        BookConfig { engine: Engine::Mc, paths: 2 * 9_001, seed: 3, steps: 8, greeks: false, ..BookConfig::default() };
    let (n, blocks) = (5u64, 3u64);
    let (_, batched) = price_book_timed(&dev, &trades, &config, &BookRun { batch: true }, &mut |_| {});
    assert_eq!(batched.allocations, 1 + 12, "{batched:?}");
    assert_eq!(batched.allocated_bytes, 8 * 2 * blocks * n + 10 * 8 * n + 2 * 4 * n, "{batched:?}");
    let (_, per_job) = price_book_timed(&dev, &trades, &config, &BookRun { batch: false }, &mut |_| {});
    assert_eq!((per_job.allocations, per_job.allocated_bytes), (n, n * 8 * 2 * blocks), "{per_job:?}");
}
