//! The delta-hedged short straddle prices through the Compute port: bitwise reproducible on one
//! backend, and the same P&L on another backend running the same kernels.

use std::sync::Arc;

use tenor_backtest::strategies::{straddle::ShortStraddle, Params};
use tenor_backtest::{Engine, EngineConfig, Feed};
use tenor_ports::Compute;

fn spy_2008() -> Feed {
    let s = tenor_backtest::data::load(&tenor_testdata::shared("data/equities/spy_daily_1999_2020.csv"), Some("SPY"))
        .expect("SPY");
    // 2008: a year with large moves, enough for several rolls.
    let start = chrono::NaiveDate::from_ymd_opt(2008, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| d.and_utc().timestamp())
        .expect("date");
    let bars: Vec<_> = s.bars.into_iter().filter(|b| b.time >= start).take(150).collect();
    Feed::new(vec![tenor_backtest::Series { symbol: "SPY".into(), bars }])
}

fn run(compute: Arc<dyn Compute>) -> Vec<(i64, f64)> {
    let mut p = Params::new();
    p.insert("paths".into(), 4096.0);
    let mut s = ShortStraddle::from_params(&p, compute).expect("params");
    let r = Engine::new(EngineConfig::default()).run(&spy_2008(), &mut s).expect("run");
    assert!(s.premiums > 0.0 && s.settlements > 0.0, "rolled and settled at least once");
    assert!(r.fills.len() > 20, "hedged daily: {} fills", r.fills.len());
    r.equity
}

#[test]
fn same_seed_same_backend_gives_bitwise_the_same_pnl() {
    let a = run(Arc::new(tenor_cpu::cpu().expect("cpu")));
    let b = run(Arc::new(tenor_cpu::cpu_with_threads(1).expect("cpu x1")));
    assert!(a.iter().zip(&b).all(|(x, y)| x.1.to_bits() == y.1.to_bits()), "P&L differs between runs");
}

#[test]
fn another_backend_gives_the_same_pnl() {
    let cpu = run(Arc::new(tenor_cpu::cpu().expect("cpu")));
    let sim = run(Arc::new(tenor_sim::sim(tenor_sim::SimConfig::default()).expect("sim")));
    // The simulated device runs the same reference kernels, so it agrees bitwise; a GPU backend
    // is held to the Monte Carlo tolerance in the backend suites.
    assert_eq!(cpu, sim);
}
