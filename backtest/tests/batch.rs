//! Batched sweep pricing: the same equity curves as unbatched runs, bitwise, with one
//! `price_batch` launch sequence per bar for the whole sweep instead of one per run and bar.

use std::sync::{Arc, Mutex};

use tenor_backtest::batch::{Pricer, PricingCounters};
use tenor_backtest::engine::{Context, Strategy, StrategyError};
use tenor_backtest::strategies::{self, Params};
use tenor_backtest::sweep;
use tenor_backtest::{Engine, EngineConfig, Feed, RunResult, Series};
use tenor_conformance::compute::Counting;
use tenor_ports::{Compute, Precision};
use tenor_pricing::mc::{McConfig, McProduct};
use tenor_pricing::types::{OptionType, Vanilla};

/// `price_batch` calls seen by `dev`: `price_batch` synchronises the device exactly twice per
/// call (before and after), and launches one `mc_european_batch` per stream for the European
/// products of a call.
fn price_batch_calls(dev: &Counting) -> u64 {
    let s = dev.syncs();
    assert_eq!(s % 2, 0, "price_batch synchronises twice per call");
    s / 2
}

/// A launch- and sync-counting CPU device, shareable as `Arc<dyn Compute>`.
fn counting_cpu() -> Arc<Counting> {
    Arc::new(Counting::cpu().expect("cpu"))
}

/// 120 SPY bars from the start of 2008.
fn spy_2008() -> Feed {
    let s = tenor_backtest::data::load(&tenor_testdata::shared("data/equities/spy_daily_1999_2020.csv"), Some("SPY"))
        .expect("SPY");
    let start = chrono::NaiveDate::from_ymd_opt(2008, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| d.and_utc().timestamp())
        .expect("date");
    let bars: Vec<_> = s.bars.into_iter().filter(|b| b.time >= start).take(120).collect();
    assert_eq!(bars.len(), 120);
    Feed::new(vec![Series { symbol: "SPY".into(), bars }])
}

/// roll {5, 10, 21} x window {10, 20} plus `extra`, 2048 paths.
fn sets(extra: &[(&str, f64)]) -> Vec<Params> {
    let axes = vec![("roll".to_owned(), vec![5.0, 10.0, 21.0]), ("window".to_owned(), vec![10.0, 20.0])];
    sweep::grid(&axes)
        .into_iter()
        .map(|mut p| {
            p.insert("paths".into(), 2048.0);
            for (k, v) in extra {
                p.insert((*k).into(), *v);
            }
            p
        })
        .collect()
}

fn unbatched(feed: &Feed, sets: &[Params]) -> (Vec<RunResult>, Arc<Counting>, Arc<PricingCounters>) {
    let c = counting_cpu();
    let counters = Arc::new(PricingCounters::default());
    let compute: Arc<dyn Compute> = c.clone();
    let make = |p: &Params| {
        strategies::build_priced("short_straddle", p, Pricer::direct_counted(compute.clone(), counters.clone()))
            .map_err(|e| StrategyError { strategy: "short_straddle".into(), bar: 0, message: e.to_string() })
    };
    let out = sweep::run(&Engine::new(EngineConfig::default()), feed, sets, make, &|| {});
    (out.into_iter().map(|r| r.expect("run")).collect(), c, counters)
}

fn batched(feed: &Feed, sets: &[Params], name: &'static str) -> (sweep::BatchedSweep, Arc<Counting>) {
    let c = counting_cpu();
    let make = |p: &Params, pricer: Pricer| {
        strategies::build_priced(name, p, pricer).map_err(|e| StrategyError {
            strategy: name.into(),
            bar: 0,
            message: e.to_string(),
        })
    };
    let seen = Mutex::new(Vec::new());
    let out = sweep::run_batched(&Engine::new(EngineConfig::default()), feed, c.clone(), sets, make, &|d, t| {
        seen.lock().expect("progress").push((d, t))
    });
    let seen = seen.into_inner().expect("progress");
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "progress goes forward: {seen:?}");
    assert_eq!(seen.last(), Some(&(feed.len() as u64, feed.len() as u64)), "progress ends at the last bar");
    (out, c)
}

fn same_bits(a: &RunResult, b: &RunResult) -> bool {
    a.equity.len() == b.equity.len()
        && a.equity.iter().zip(&b.equity).all(|(x, y)| x.0 == y.0 && x.1.to_bits() == y.1.to_bits())
        && a.fills == b.fills
}

#[test]
fn batched_sweep_is_bitwise_the_unbatched_one_with_one_price_batch_per_bar() {
    let feed = spy_2008();
    let sets = sets(&[]);
    let (want, cu, counted) = unbatched(&feed, &sets);
    let (got, cb) = batched(&feed, &sets, "short_straddle");
    assert_eq!(got.results.len(), sets.len());
    for ((p, w), g) in sets.iter().zip(&want).zip(&got.results) {
        let g = g.as_ref().expect("batched run");
        assert!(w.fills.len() > 20, "{p:?}: hedged daily ({} fills)", w.fills.len());
        assert!(same_bits(w, g), "{p:?}: batched equity or fills differ from unbatched");
    }
    // A run with window w prices on every bar from bar w on (SPY trades every bar): 110 bars
    // for window 10 and 100 for window 20, three runs each.
    let unbatched_calls = 3 * 110 + 3 * 100;
    assert_eq!(price_batch_calls(&cu), unbatched_calls);
    assert_eq!(counted.calls(), unbatched_calls);
    assert_eq!(counted.products(), 6 * unbatched_calls);
    // Batched: one call for each bar at which any run priced (bars 10..120).
    assert_eq!(price_batch_calls(&cb), 110);
    assert_eq!(got.stats.calls, 110);
    assert_eq!(got.stats.bars, 110);
    assert_eq!(got.stats.requests, unbatched_calls);
    assert_eq!(got.stats.products, 6 * unbatched_calls);
    // One stream: each price_batch call runs its six Europeans (a run's, or every run's of
    // the bar) as one mc_european_batch launch.
    assert_eq!(cb.launches(), 110);
    assert_eq!(cu.launches(), unbatched_calls);
}

#[test]
fn concurrent_lockstep_groups_give_the_same_bits_with_one_call_per_group_and_bar() {
    let feed = spy_2008();
    let sets = sets(&[]);
    let (want, _, _) = unbatched(&feed, &sets);
    let c = counting_cpu();
    let make = |p: &Params, pricer: Pricer| {
        strategies::build_priced("short_straddle", p, pricer).map_err(|e| StrategyError {
            strategy: "short_straddle".into(),
            bar: 0,
            message: e.to_string(),
        })
    };
    let last = Mutex::new((0, 0));
    let got =
        sweep::run_batched_groups(&Engine::new(EngineConfig::default()), &feed, c.clone(), &sets, 2, make, &|d, t| {
            *last.lock().expect("progress") = (d, t)
        });
    for (w, g) in want.iter().zip(&got.results) {
        assert!(same_bits(w, g.as_ref().expect("batched run")));
    }
    // Grid order: (roll 5, 10, 21) x (window 10, 20); groups of three both hold a window-10 run
    // and so price bars 10..120: 110 calls each.
    assert_eq!(price_batch_calls(&c), 2 * 110);
    assert_eq!(got.stats.requests, 3 * 110 + 3 * 100);
    assert_eq!(*last.lock().expect("progress"), (240, 240), "two groups of 120 bars done");
}

#[test]
fn distinct_seeds_get_one_call_per_configuration_and_stay_bitwise() {
    let feed = spy_2008();
    let mut sets = sets(&[("window", 10.0)]);
    sets.dedup();
    assert_eq!(sets.len(), 3);
    let more: Vec<Params> = sets
        .iter()
        .cloned()
        .map(|mut p| {
            p.insert("seed".into(), 7.0);
            p
        })
        .collect();
    sets.extend(more);
    let (want, _, _) = unbatched(&feed, &sets);
    let (got, cb) = batched(&feed, &sets, "short_straddle");
    for (w, g) in want.iter().zip(&got.results) {
        assert!(same_bits(w, g.as_ref().expect("batched run")));
    }
    // Two seeds, two Monte Carlo configurations per bar, 110 bars.
    assert_eq!(price_batch_calls(&cb), 2 * 110);
    assert_ne!(want[0].equity, want[3].equity, "another seed gives other paths");
}

/// Prices one call per bar and fails at bar `fail_at`.
struct FailsAt {
    pricer: Pricer,
    fail_at: usize,
}

impl Strategy for FailsAt {
    fn name(&self) -> String {
        format!("fails at {}", self.fail_at)
    }
    fn on_bar(&mut self, ctx: &mut Context<'_>) -> Result<(), StrategyError> {
        if ctx.index() == self.fail_at {
            return Err(ctx.error("planned failure"));
        }
        let spot = ctx.last_close(0).ok_or_else(|| ctx.error("no close"))?;
        let call = McProduct::European(Vanilla {
            option: OptionType::Call,
            spot,
            strike: spot,
            maturity: 0.1,
            rate: 0.0,
            dividend: 0.0,
            vol: 0.2,
        });
        let cfg = McConfig { paths: 1024, seed: 3, steps: 1, precision: Precision::F64, ..McConfig::default() };
        let out = self.pricer.price(ctx.index(), &[call], &cfg, false).map_err(|e| ctx.error(e.to_string()))?;
        let p = out.into_iter().next().ok_or_else(|| ctx.error("no result"))?.map_err(|e| ctx.error(e.to_string()))?;
        ctx.set_mark("call", Some(p.price.price));
        Ok(())
    }
}

#[test]
fn failing_and_non_pricing_runs_do_not_stall_the_others() {
    let feed = spy_2008();
    // fail_at 0: never prices (a run that errors at once); 30 and 200 (never fails).
    let sets: Vec<Params> = [0.0, 30.0, 200.0].iter().map(|f| Params::from([("fail_at".to_owned(), *f)])).collect();
    let c = counting_cpu();
    let make = |p: &Params, pricer: Pricer| -> Result<Box<dyn Strategy>, StrategyError> {
        Ok(Box::new(FailsAt { pricer, fail_at: p["fail_at"] as usize }))
    };
    let out = sweep::run_batched(&Engine::new(EngineConfig::default()), &feed, c.clone(), &sets, make, &|_, _| {});
    let msg = |i: usize| out.results[i].as_ref().err().map(|e| (e.bar, e.message.clone()));
    assert_eq!(msg(0), Some((0, "planned failure".into())));
    assert_eq!(msg(1), Some((30, "planned failure".into())));
    assert!(out.results[2].is_ok());
    // Bars 0..30 price the two live runs together, bars 30..120 the last one alone.
    assert_eq!(price_batch_calls(&c), 120);
    assert_eq!(out.stats.requests, 30 + 120);
    // A strategy that never prices runs through the batched sweep without any call.
    let c = counting_cpu();
    let make = |p: &Params, pricer: Pricer| {
        strategies::build_priced("buy_and_hold", p, pricer).map_err(|e| StrategyError {
            strategy: "buy_and_hold".into(),
            bar: 0,
            message: e.to_string(),
        })
    };
    let out =
        sweep::run_batched(&Engine::new(EngineConfig::default()), &feed, c.clone(), &[Params::new()], make, &|_, _| {});
    assert!(out.results[0].is_ok());
    assert_eq!(price_batch_calls(&c), 0);
}
