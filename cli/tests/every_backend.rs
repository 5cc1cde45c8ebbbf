//! Swap cost (3): the example book and the option strategy run unchanged, through the same
//! code, on every backend this build has, and agree with the CPU reference. With
//! `TENOR_REQUIRE_BACKENDS=sycl` (scripts/test) a backend that is asked for and missing fails
//! the test instead of being skipped.

use std::path::Path;
use std::sync::Arc;

use tenor_backtest::strategies::{straddle::ShortStraddle, Params};
use tenor_backtest::{Engine, EngineConfig, Feed, Series};
use tenor_ports::Compute;
use tenor_pricing::portfolio::{parse_portfolio, price_book, BookConfig, Engine as BookEngine, Trade, TradeKind};

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn backends() -> Vec<(String, Arc<dyn Compute>)> {
    let required: Vec<String> = std::env::var("TENOR_REQUIRE_BACKENDS")
        .unwrap_or_default()
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    let mut out = Vec::new();
    for name in tenor_registry::names() {
        match tenor_registry::open(name) {
            Ok(c) => out.push((name.to_owned(), c)),
            Err(e) => assert!(!required.iter().any(|r| r == name), "required backend {name} unavailable: {e}"),
        }
    }
    out
}

/// Every non-European trade of the example book and every 40th European.
fn book() -> Vec<Trade> {
    let path = root().join("examples/spx_book.csv");
    let file = std::fs::File::open(&path).expect("examples/spx_book.csv");
    let p = parse_portfolio(file, &path).expect("readable book");
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let mut europeans = 0;
    p.trades
        .into_iter()
        .filter(|t| match t.kind {
            TradeKind::European(_) => {
                europeans += 1;
                europeans % 40 == 1
            }
            _ => true,
        })
        .collect()
}

fn prices(compute: &dyn Compute, trades: &[Trade]) -> Vec<f64> {
    let cfg = BookConfig { engine: BookEngine::Mc, paths: 20_000, seed: 11, steps: 32, streams: 2, greeks: false };
    price_book(compute, trades, &cfg, &mut |_| {}).into_iter().map(|r| r.expect("priced").price).collect()
}

fn straddle_equity(compute: Arc<dyn Compute>) -> Vec<f64> {
    let s = tenor_backtest::data::load(&tenor_testdata::shared("data/equities/spy_daily_1999_2020.csv"), Some("SPY"))
        .expect("SPY");
    let feed = Feed::new(vec![Series { symbol: "SPY".into(), bars: s.bars.into_iter().take(120).collect() }]);
    let mut p = Params::new();
    p.insert("paths".into(), 2048.0);
    let mut strategy = ShortStraddle::from_params(&p, compute).expect("params");
    Engine::new(EngineConfig::default())
        .run(&feed, &mut strategy)
        .expect("run")
        .equity
        .into_iter()
        .map(|e| e.1)
        .collect()
}

/// Largest element-wise relative difference of `got` from `want`; infinity when the lengths
/// differ or any value on either side is NaN or infinite (`f64::max` would drop a NaN and a zip
/// the tail of a longer vector, so a broken backend would "agree").
fn max_rel(got: &[f64], want: &[f64]) -> f64 {
    if got.len() != want.len() || got.iter().chain(want).any(|x| !x.is_finite()) {
        return f64::INFINITY;
    }
    got.iter().zip(want).map(|(x, y)| (x - y).abs() / y.abs().max(1e-300)).fold(0.0, f64::max)
}

#[test]
fn max_rel_rejects_nan_inf_and_length_mismatch() {
    // |1.5 - 1| / 1 = 0.5 beats |2.5 - 2| / 2 = 0.25.
    assert_eq!(max_rel(&[1.5, 2.5], &[1.0, 2.0]), 0.5);
    assert_eq!(max_rel(&[1.0, 2.0], &[1.0, 2.0]), 0.0);
    assert_eq!(max_rel(&[f64::NAN, 2.0], &[1.0, 2.0]), f64::INFINITY);
    assert_eq!(max_rel(&[1.0, 2.0], &[1.0, f64::NAN]), f64::INFINITY);
    assert_eq!(max_rel(&[1.0, f64::INFINITY], &[1.0, 2.0]), f64::INFINITY);
    assert_eq!(max_rel(&[1.0, 2.0], &[f64::NEG_INFINITY, 2.0]), f64::INFINITY);
    assert_eq!(max_rel(&[1.0], &[1.0, 2.0]), f64::INFINITY);
    assert_eq!(max_rel(&[1.0, 2.0, 3.0], &[1.0, 2.0]), f64::INFINITY);
}

#[test]
fn example_book_and_strategy_run_unchanged_on_every_backend() {
    let trades = book();
    assert!(trades.len() > 90, "{} trades", trades.len());
    let all = backends();
    let cpu = all.iter().find(|(n, _)| n == "cpu").map(|(_, c)| c.clone()).expect("cpu is always built");
    let want = prices(&*cpu, &trades);
    let want_equity = straddle_equity(cpu.clone());
    for (name, c) in &all {
        let got = prices(&**c, &trades);
        // fp64 Monte Carlo with the same Philox paths: last-ulp differences of exp/log/sin/cos.
        let d = max_rel(&got, &want);
        assert!(d <= 1e-12, "{name}: book differs from the CPU backend by {d:e}");
        let e = max_rel(&straddle_equity(c.clone()), &want_equity);
        assert!(e <= 1e-9, "{name}: straddle equity differs from the CPU backend by {e:e}");
        eprintln!("{name}: {} trades within {d:e} of cpu, straddle equity within {e:e}", trades.len());
    }
}
