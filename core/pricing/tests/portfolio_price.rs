//! The book pricer: routing, independent checks of the rows it produces (put-call parity,
//! Monte Carlo against the closed forms within 3 standard errors, monitoring order of
//! barriers), American and Heston rows against independent values, and the same numbers on
//! the simulated device.
use std::path::Path;

use tenor_pricing::portfolio::{parse_portfolio, price_book, BookConfig, Engine, PriceError, PricedRow, Trade};

const BOOK: &str =
    "id,kind,type,spot,strike,maturity,rate,dividend,vol,barrier,barrier_type,rebate,fixings,v0,kappa,theta,xi,rho
c,european,call,100,95,0.75,0.04,0.015,0.25,,,,,,,,,
p,european,put,100,95,0.75,0.04,0.015,0.25,,,,,,,,,
bo,barrier,call,100,100,1,0.05,0.01,0.2,90,down_out,2,,,,,,
bod,barrier,call,100,100,1,0.05,0.01,0.2,90,down_out,2,12,,,,,
bi,barrier,put,100,100,1,0.05,0.01,0.2,110,up_in,0,,,,,,
g,asian_geo,call,100,100,1,0.05,0.01,0.2,,,,12,,,,,
a,asian_arith,call,100,100,1,0.05,0.01,0.2,,,,12,,,,,
am,american,put,100,100,1,0.05,0,0.2,,,,,,,,,
h,heston,call,100,100,1,0.05,0,,,,,,0.04,2,0.04,0.5,-0.7
";

fn trades() -> Vec<Trade> {
    let p = parse_portfolio(BOOK.as_bytes(), Path::new("t.csv")).expect("readable");
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    p.trades
}

fn price(engine: Engine, paths: u64, greeks: bool) -> Vec<Result<PricedRow, PriceError>> {
    let cpu = tenor_cpu::cpu().expect("cpu");
    let cfg = BookConfig { engine, paths, seed: 7, steps: 32, streams: 1, greeks };
    let mut calls = 0;
    let out = price_book(&cpu, &trades(), &cfg, &mut |_| calls += 1);
    assert!(calls > 0, "progress never reported");
    out
}

fn row(rows: &[Result<PricedRow, PriceError>], i: usize) -> &PricedRow {
    rows[i].as_ref().unwrap_or_else(|e| panic!("row {i}: {e}"))
}

#[test]
fn routes_methods_and_prices_american_and_heston_rows() {
    let rows = price(Engine::Auto, 20_000, false);
    let methods: Vec<&str> = rows.iter().map(|r| r.as_ref().map_or("err", |r| r.method.as_str())).collect();
    assert_eq!(methods, ["analytic", "analytic", "analytic", "mc", "analytic", "analytic", "mc", "pde", "analytic"]);
    assert_eq!(row(&rows, 0).backend, "host");
    assert_eq!(row(&rows, 3).backend, "cpu");
    assert!(row(&rows, 0).stderr.is_none() && row(&rows, 3).stderr.is_some_and(|s| s > 0.0));
    // American put S = K = 100, T = 1, r = 5 %, vol 20 %: a Cox-Ross-Rubinstein tree computed
    // independently (4000 and 8000 steps) gives 6.09018 and 6.09028, oscillating about 6.0903.
    let am = row(&rows, 7).price;
    assert!((am - 6.0903).abs() < 5e-4, "american put {am}");
    // Heston call (v0 = theta = 0.04, kappa = 2, xi = 0.5, rho = -0.7): the Heston (1993) formula
    // with the Albrecher et al. (2007) characteristic function, integrated independently by the
    // trapezoidal rule on (0, 200] with 2e5 points, gives 10.154627.
    let he = row(&rows, 8).price;
    assert!((he - 10.154627).abs() < 1e-4, "heston call {he}");
}

#[test]
fn european_rows_satisfy_put_call_parity() {
    let rows = price(Engine::Auto, 20_000, true);
    let (c, p) = (row(&rows, 0), row(&rows, 1));
    let (s, k, t, r, q) = (100.0_f64, 95.0_f64, 0.75_f64, 0.04_f64, 0.015_f64);
    let parity = s * (-q * t).exp() - k * (-r * t).exp();
    assert!((c.price - p.price - parity).abs() < 1e-12 * s, "{} - {} vs {parity}", c.price, p.price);
    // Delta parity: delta_c - delta_p = e^{-qT}; gamma and vega equal.
    let (dc, dp) = (c.delta.expect("delta"), p.delta.expect("delta"));
    assert!((dc - dp - (-q * t).exp()).abs() < 1e-12);
    assert!((c.gamma.expect("g") - p.gamma.expect("g")).abs() < 1e-12);
    assert!((c.vega.expect("v") - p.vega.expect("v")).abs() < 1e-9);
}

#[test]
fn forced_monte_carlo_agrees_with_closed_forms() {
    let exact = price(Engine::Auto, 20_000, false);
    let mc = price(Engine::Mc, 200_000, false);
    // european call, european put, continuous barrier (down-out call, up-in put), geometric Asian.
    for i in [0, 1, 2, 4, 5] {
        let (e, m) = (row(&exact, i), row(&mc, i));
        assert_eq!(m.method, "mc");
        let se = m.stderr.expect("stderr");
        assert!((m.price - e.price).abs() < 3.0 * se, "row {i}: mc {} +/- {se} vs closed form {}", m.price, e.price);
    }
    // The American put: Longstaff-Schwartz on the backend (32 exercise dates, out of sample, so
    // low-biased), within 4 standard errors and a 0.5 % bias allowance below the finite
    // differences of the default engine.
    let (e, m) = (row(&exact, 7), row(&mc, 7));
    assert_eq!((e.method.as_str(), m.method.as_str(), m.backend.as_str()), ("pde", "lsm", "cpu"));
    let se = m.stderr.expect("stderr");
    assert!(se > 0.0 && m.price <= e.price + 4.0 * se, "lsm {} +/- {se} vs pde {}", m.price, e.price);
    assert!(m.price >= e.price - 4.0 * se - 0.005 * e.price, "lsm {} +/- {se} vs pde {}", m.price, e.price);
}

#[test]
fn discrete_knock_out_worth_more_than_continuous() {
    // Fewer monitoring dates, fewer knock-outs: V(12 fixings) > V(continuous) for the same
    // down-and-out call (Broadie, Glasserman and Kou 1997 put the gap near a barrier shift of
    // 0.5826 sigma sqrt(dt)).
    let rows = price(Engine::Auto, 100_000, false);
    let (cont, disc) = (row(&rows, 2), row(&rows, 3));
    assert!(disc.price > cont.price + 3.0 * disc.stderr.expect("se"), "{} vs {}", disc.price, cont.price);
}

#[test]
fn monte_carlo_greeks_near_closed_form_greeks() {
    let exact = price(Engine::Auto, 20_000, true);
    let mc = price(Engine::Mc, 100_000, true);
    let (e, m) = (row(&exact, 0), row(&mc, 0));
    let close = |a: Option<f64>, b: Option<f64>, tol: f64| (a.expect("greek") - b.expect("greek")).abs() < tol;
    assert!(close(e.delta, m.delta, 0.01), "delta {:?} vs {:?}", e.delta, m.delta);
    assert!(close(e.vega, m.vega, 0.5), "vega {:?} vs {:?}", e.vega, m.vega);
    assert!(close(e.rho, m.rho, 0.5), "rho {:?} vs {:?}", e.rho, m.rho);
    assert!(close(e.theta, m.theta, 0.3), "theta {:?} vs {:?}", e.theta, m.theta);
}

#[test]
fn simulated_device_with_four_streams_gives_the_cpu_numbers() {
    let t = trades();
    let cfg = BookConfig { engine: Engine::Mc, paths: 20_000, seed: 11, steps: 16, streams: 1, greeks: false };
    let cpu = tenor_cpu::cpu().expect("cpu");
    let sim = tenor_sim::sim(tenor_sim::SimConfig::default()).expect("sim");
    let a = price_book(&cpu, &t, &cfg, &mut |_| {});
    let b = price_book(&sim, &t, &BookConfig { streams: 4, ..cfg }, &mut |_| {});
    for (i, (x, y)) in a.iter().zip(&b).enumerate().take(7) {
        let (x, y) = (x.as_ref().expect("cpu row"), y.as_ref().expect("sim row"));
        assert_eq!(x.price.to_bits(), y.price.to_bits(), "row {i}");
        assert_eq!(x.stderr.map(f64::to_bits), y.stderr.map(f64::to_bits), "row {i}");
    }
}
