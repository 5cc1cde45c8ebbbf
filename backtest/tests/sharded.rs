//! A batched sweep over several simulated devices (ADR 0020): every run's equity curve and
//! fills bitwise those of one device and of the unbatched CPU reference, runs back in grid
//! order, each device pricing its own share.
use std::sync::Arc;

use tenor_backtest::batch::Pricer;
use tenor_backtest::engine::StrategyError;
use tenor_backtest::strategies::{self, Params};
use tenor_backtest::sweep;
use tenor_backtest::{Engine, EngineConfig, Feed, RunResult, Series};
use tenor_ports::{Compute, Devices};

/// 60 SPY bars from the start of 2008.
fn spy_2008() -> Feed {
    let s = tenor_backtest::data::load(&tenor_testdata::shared("data/equities/spy_daily_1999_2020.csv"), Some("SPY"))
        .expect("SPY");
    let start = chrono::NaiveDate::from_ymd_opt(2008, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| d.and_utc().timestamp())
        .expect("date");
    let bars: Vec<_> = s.bars.into_iter().filter(|b| b.time >= start).take(60).collect();
    assert_eq!(bars.len(), 60);
    Feed::new(vec![Series { symbol: "SPY".into(), bars }])
}

/// roll {5, 10, 21} x window {10, 20} x paths {1024, 2048}: runs of two costs.
fn sets() -> Vec<Params> {
    let axes = vec![
        ("roll".to_owned(), vec![5.0, 10.0, 21.0]),
        ("window".to_owned(), vec![10.0, 20.0]),
        ("paths".to_owned(), vec![1024.0, 2048.0]),
    ];
    sweep::grid(&axes)
}

fn sims(n: usize) -> Devices {
    let devices: Vec<Arc<dyn Compute>> = (0..n)
        .map(|i| {
            let d = tenor_sim::sim(tenor_sim::SimConfig { seed: i as u64 + 1, ..tenor_sim::SimConfig::default() })
                .expect("sim");
            Arc::new(d) as Arc<dyn Compute>
        })
        .collect();
    Devices::new(devices, (0..n).map(|i| format!("sim:{i}")).collect()).expect("devices")
}

fn make(p: &Params, pricer: Pricer) -> Result<Box<dyn tenor_backtest::Strategy>, StrategyError> {
    strategies::build_priced("short_straddle", p, pricer).map_err(|e| StrategyError {
        strategy: "short_straddle".into(),
        bar: 0,
        message: e.to_string(),
    })
}

fn bits(r: &RunResult) -> (Vec<(i64, u64)>, String) {
    (r.equity.iter().map(|(t, e)| (*t, e.to_bits())).collect(), format!("{:?}", r.fills))
}

#[test]
fn sharded_sweep_is_bitwise_one_device_and_the_cpu_reference() {
    let feed = spy_2008();
    let sets = sets();
    let engine = Engine::new(EngineConfig::default());
    // Reference: every run alone, unbatched, on the CPU backend.
    let cpu: Arc<dyn Compute> = Arc::new(tenor_cpu::cpu().expect("cpu"));
    let reference: Vec<RunResult> = sweep::run(&engine, &feed, &sets, |p| make(p, Pricer::direct(cpu.clone())), &|| {})
        .into_iter()
        .map(|r| r.expect("reference run"))
        .collect();
    assert!(reference.iter().all(|r| r.fills.len() > 5), "the straddle trades");
    for n in [1, 2, 3] {
        let devices = sims(n);
        let last = std::sync::Mutex::new((0, 0));
        let out = sweep::run_batched_sharded(&engine, &feed, &devices, &sets, 1, make, &|r| r, &|d, t| {
            let mut l = last.lock().expect("progress");
            *l = (l.0.max(d), l.1.max(t));
        });
        assert_eq!(out.results.len(), sets.len());
        for ((p, want), got) in sets.iter().zip(&reference).zip(&out.results) {
            let got = got.as_ref().unwrap_or_else(|e| panic!("{p:?} on {n} devices: {e}"));
            assert_eq!(bits(got), bits(want), "{p:?} on {n} devices differs from the CPU reference");
        }
        // Balanced by paths: 6 runs of 1024 and 6 of 2048 paths split by cost.
        let costs: Vec<f64> = sets.iter().map(sweep::run_cost).collect();
        let s = devices.shard(&costs);
        assert!(s.imbalance() <= 0.10 || n == 1, "{n} devices: loads {:?}", s.loads);
        // Each device makes its own price_batch call per bar and distinct `paths` among its
        // runs that price at that bar (a run with window w prices on every bar from bar w on).
        let want: usize = s
            .shards
            .iter()
            .map(|shard| {
                (0..60)
                    .map(|t| {
                        let mut paths: Vec<u64> = shard
                            .iter()
                            .filter(|i| sets[**i]["window"] as usize <= t)
                            .map(|i| sets[*i]["paths"] as u64)
                            .collect();
                        paths.sort_unstable();
                        paths.dedup();
                        paths.len()
                    })
                    .sum::<usize>()
            })
            .sum();
        assert_eq!(out.stats.calls, want as u64, "{n} devices");
        let (d, t) = last.into_inner().expect("progress");
        assert_eq!((d, t), (n as u64 * 60, n as u64 * 60), "progress reaches every device's last bar");
    }
}
