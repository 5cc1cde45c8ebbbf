//! Issue 17: fills never spend cash the account does not have, non-finite state stops the run
//! naming the bar, metrics are never computed from non-finite or non-positive equity, and
//! annualisation counts the primary feed's bars. Expectations are hand-computed.

use tenor_backtest::engine::CashPolicy;
use tenor_backtest::metrics;
use tenor_backtest::strategies::{buy_and_hold::BuyAndHold, Params};
use tenor_backtest::{Bar, CostModel, Engine, EngineConfig, Feed, Fill, Series};

fn bar(time: i64, o: f64, c: f64) -> Bar {
    Bar { time, open: o, high: o.max(c), low: o.min(c), close: c, volume: 1000.0, dividend: 0.0 }
}

fn series(symbol: &str, bars: Vec<Bar>) -> Series {
    Series { symbol: symbol.into(), bars }
}

/// Close 100, next open 200 (the price doubles overnight), then flat.
fn gap_up() -> Feed {
    let d = 86_400;
    Feed::new(vec![series("X", vec![bar(d, 100.0, 100.0), bar(2 * d, 200.0, 200.0), bar(3 * d, 200.0, 200.0)])])
}

fn run(feed: &Feed, config: EngineConfig) -> Result<tenor_backtest::RunResult, tenor_backtest::engine::StrategyError> {
    let mut bh = BuyAndHold::from_params(&Params::new()).expect("params");
    Engine::new(config).run(feed, &mut bh)
}

/// buy_and_hold sizes floor(10000 x 0.99 / 100) = 99 shares on the close; at the open of 200
/// they cost 19,800 (with 1 bp slippage and 1 bp commission, 19,803.96: the old engine left
/// cash at -9,803.96). Refused: cash stays 10,000. Resized: floor(10000 / (200.02 x 1.0001)) =
/// 49 shares, cash 10000 - 49 x 200.02 x 1.0001 = 198.039902.
#[test]
fn a_gap_up_buy_is_refused_or_resized_never_borrowed() {
    let costs = CostModel { bps: 1.0, slippage_bps: 1.0, ..CostModel::default() };
    let refuse = run(&gap_up(), EngineConfig { cash: 10_000.0, costs, ..EngineConfig::default() }).expect("run");
    assert!(refuse.fills.is_empty(), "{:?}", refuse.fills);
    assert_eq!(refuse.metrics.refused_orders, 1);
    assert!(refuse.equity.iter().all(|(_, e)| *e == 10_000.0), "{:?}", refuse.equity);

    let config = EngineConfig { cash: 10_000.0, costs, cash_policy: CashPolicy::Resize, ..EngineConfig::default() };
    let resize = run(&gap_up(), config).expect("run");
    let f: &Fill = resize.fills.first().expect("one fill");
    assert_eq!((f.quantity, resize.metrics.resized_orders, resize.metrics.refused_orders), (49.0, 1, 0));
    assert!((f.price - 200.02).abs() < 1e-9, "{}", f.price);
    let cash = 10_000.0 - 49.0 * 200.02 * 1.0001;
    let equity = cash + 49.0 * 200.0;
    assert!(cash >= 0.0 && (resize.equity[1].1 - equity).abs() < 1e-6, "{:?} vs {equity}", resize.equity);
}

/// Bars scaled to 1e-310 (subnormal) size an infinite number of shares: the run stops with an
/// error naming the bar instead of writing `inf` quantities and NaN metrics.
#[test]
fn subnormal_prices_stop_the_run_naming_the_bar() {
    let d = 86_400;
    let tiny = |x: f64| x * 1e-310;
    let feed =
        Feed::new(vec![series("X", vec![bar(d, tiny(100.0), tiny(100.0)), bar(2 * d, tiny(101.0), tiny(102.0))])]);
    let e = run(&feed, EngineConfig { cash: 10_000.0, ..EngineConfig::default() }).expect_err("non-finite");
    assert_eq!(e.bar, 1, "{e}");
    assert!(e.to_string().contains("not a finite positive trade"), "{e}");
}

/// Cash and costs at 1e308: the buy of 9.9e305 shares would cost `inf`; resized, one share
/// (100 + 1e308 commission rounds to 1e308, the cash) fills and the account stays finite. A
/// starting cash of f64::MAX with a price rise overflows equity: the run stops at that bar.
#[test]
fn overflowing_cash_and_costs_never_reach_the_metrics() {
    let costs = CostModel { per_share: 1e308, ..CostModel::default() };
    let mut config = EngineConfig { cash: 1e308, costs, cash_policy: CashPolicy::Resize, ..EngineConfig::default() };
    let d = 86_400;
    let feed = Feed::new(vec![series("X", vec![bar(d, 100.0, 100.0), bar(2 * d, 100.0, 100.0)])]);
    let r = run(&feed, config).expect("run");
    assert_eq!(r.fills.iter().map(|f| f.quantity).collect::<Vec<_>>(), [1.0]);
    assert!(r.equity.iter().all(|(_, e)| e.is_finite() && *e >= 0.0), "{:?}", r.equity);
    config.costs = CostModel::default();
    config.cash = f64::MAX;
    let feed =
        Feed::new(vec![series("X", vec![bar(d, 100.0, 100.0), bar(2 * d, 100.0, 100.0), bar(3 * d, 100.0, 300.0)])]);
    let e = run(&feed, config).expect_err("equity overflows");
    assert_eq!(e.bar, 2, "{e}");
    assert!(e.to_string().contains("no longer a finite number"), "{e}");
}

/// Metrics need positive equity: with equity that goes negative (a short gone wrong) the
/// return-based figures are NaN, not a Sharpe of a sign-flipping series.
#[test]
fn metrics_are_nan_when_equity_is_not_positive() {
    let eq = vec![(0, 100.0), (1, 50.0), (2, -10.0), (3, 20.0)];
    let m = metrics::compute(&eq, &[], 252.0);
    for (name, x) in [("total", m.total_return), ("sharpe", m.sharpe), ("vol", m.volatility), ("mdd", m.max_drawdown)] {
        assert!(x.is_nan(), "{name} = {x}");
    }
}

/// A million bars of equity near 1e303: the mean equity (turnover's denominator) is a running
/// mean and does not overflow. One fill of notional 1e303 over 1e6 / 252 years:
/// turnover = 1e303 / 1e303 / (999999 / 252) = 252 / 999999.
#[test]
fn a_million_bars_of_large_equity_do_not_overflow() {
    let eq: Vec<(i64, f64)> = (0..1_000_000).map(|i| (i, 1e303)).collect();
    let fill = Fill { order: 0, time: 0, symbol: "X".into(), quantity: 1e301, price: 100.0, commission: 0.0 };
    let m = metrics::compute(&eq, &[fill], 252.0);
    assert!((m.turnover - 252.0 / 999_999.0).abs() < 1e-12, "turnover {}", m.turnover);
    assert_eq!((m.total_return, m.max_drawdown, m.periods), (0.0, 0.0, 999_999));
}

/// Adding a minute feed beside the daily one leaves the daily run's metrics unchanged: they are
/// annualised on the primary feed's bars (the old engine counted every feed's bars, so its
/// Sharpe moved with the extra feed).
#[test]
fn annualisation_counts_the_primary_feeds_bars() {
    let d = 86_400;
    let closes = [100.0, 101.0, 99.5, 102.0, 103.5, 101.0, 104.0, 106.0];
    let daily: Vec<Bar> = closes.iter().enumerate().map(|(i, c)| bar((i as i64 + 1) * d, *c, *c)).collect();
    // Minute bars inside days 3 and 4, between the daily stamps (which are the days' ends).
    let minute: Vec<Bar> = (0..300).map(|k| bar(3 * d + 60 * (k + 1), 50.0, 50.0 + (k % 7) as f64)).collect();
    let config = EngineConfig { cash: 10_000.0, ..EngineConfig::default() };
    let alone = run(&Feed::new(vec![series("D", daily.clone())]), config).expect("daily");
    let mixed = run(&Feed::new(vec![series("D", daily), series("M", minute)]), config).expect("mixed");
    assert_eq!(alone.fills, mixed.fills);
    assert_eq!(alone.metrics.periods, 7);
    assert_eq!(mixed.metrics.periods, 7);
    assert_eq!(
        (alone.metrics.sharpe, alone.metrics.annual_return),
        (mixed.metrics.sharpe, mixed.metrics.annual_return)
    );
    assert!(mixed.equity.len() > alone.equity.len());
}
