//! The strategies' registration table (ADR 0016): every row builds with its defaults, takes
//! exactly the parameters it lists, prices options exactly when it says so (counted on the
//! pricer over 60 SPY bars), and the help text and "unknown strategy" error list every row.

use std::sync::Arc;

use tenor_backtest::batch::{Pricer, PricingCounters};
use tenor_backtest::strategies::{self, ParamError, Params, STRATEGIES};
use tenor_backtest::{Engine, EngineConfig, Feed, Series};
use tenor_ports::Compute;

fn cpu() -> Arc<dyn Compute> {
    Arc::new(tenor_cpu::cpu().expect("cpu"))
}

/// 60 SPY bars from the start of 2008.
fn spy() -> Feed {
    let s = tenor_backtest::data::load(&tenor_testdata::shared("data/equities/spy_daily_1999_2020.csv"), Some("SPY"))
        .expect("SPY");
    let bars: Vec<_> = s.bars.into_iter().skip(2260).take(60).collect();
    assert_eq!(bars.len(), 60);
    Feed::new(vec![Series { symbol: "SPY".into(), bars }])
}

#[test]
fn every_row_builds_with_its_defaults_and_takes_exactly_its_parameters() {
    for row in STRATEGIES {
        strategies::build(row.name, &Params::new(), cpu()).unwrap_or_else(|e| panic!("{}: {e}", row.name));
        let explicit: Params = row.params.iter().map(|(n, d)| ((*n).to_owned(), *d)).collect();
        strategies::build(row.name, &explicit, cpu()).unwrap_or_else(|e| panic!("{}: {e}", row.name));
        let mut bogus = explicit.clone();
        bogus.insert("no_such_parameter".into(), 1.0);
        match strategies::build(row.name, &bogus, cpu()) {
            Err(ParamError::Unknown { strategy, name, takes }) => {
                assert_eq!((strategy.as_str(), name.as_str()), (row.name, "no_such_parameter"));
                let listed: Vec<&str> = takes.split(", ").filter_map(|t| t.split(" (default").next()).collect();
                let table: Vec<&str> = row.params.iter().map(|(n, _)| *n).collect();
                assert_eq!(listed, table, "{}", row.name);
            }
            Err(other) => panic!("{}: {other}", row.name),
            Ok(_) => panic!("{}: took an unknown parameter", row.name),
        }
    }
}

#[test]
fn a_row_prices_options_exactly_when_it_says_so() {
    let feed = spy();
    for row in STRATEGIES {
        let counters = Arc::new(PricingCounters::default());
        let mut params = Params::new();
        // small enough for a fast test (the straddle's window and roll fit in 60 bars)
        for (n, v) in [("paths", 512.0), ("window", 10.0), ("roll", 5.0), ("fast", 5.0), ("slow", 20.0)] {
            if row.params.iter().any(|(p, _)| *p == n) {
                params.insert(n.into(), v);
            }
        }
        let mut s = strategies::build_priced(row.name, &params, Pricer::direct_counted(cpu(), counters.clone()))
            .expect("build");
        Engine::new(EngineConfig::default()).run(&feed, s.as_mut()).expect("run");
        assert_eq!(counters.calls() > 0, row.prices_options, "{}: {} pricing calls", row.name, counters.calls());
        assert_eq!(strategies::prices_options(row.name), row.prices_options);
    }
    assert!(!strategies::prices_options("no_such_strategy"));
}

#[test]
fn the_help_and_the_unknown_strategy_error_list_every_row() {
    let Err(e) = strategies::build("no_such_strategy", &Params::new(), cpu()) else { panic!("built") };
    let msg = e.to_string();
    let listed = msg.split("known: ").nth(1).expect("a list");
    assert_eq!(listed.split(", ").collect::<Vec<_>>(), strategies::names(), "{msg}");
    let help = strategies::help();
    for row in STRATEGIES {
        assert!(help.contains(&format!("`{}` ({}", row.name, row.description)), "{help}");
        for (n, d) in row.params {
            assert!(help.contains(&format!("{n}={d}")), "{}: {n} missing from {help}", row.name);
        }
    }
}
