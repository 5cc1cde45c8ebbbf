//! Engine rules with hand-computed expectations.

use tenor_backtest::engine::{Context, Strategy, StrategyError};
use tenor_backtest::metrics;
use tenor_backtest::strategies::{buy_and_hold::BuyAndHold, Params};
use tenor_backtest::{Bar, CostModel, Engine, EngineConfig, Feed, OrderKind, Series};

fn bar(day: i64, o: f64, h: f64, l: f64, c: f64) -> Bar {
    Bar { time: day * 86_400, open: o, high: h, low: l, close: c, volume: 1000.0, dividend: 0.0 }
}

fn feed(bars: Vec<Bar>) -> Feed {
    Feed::new(vec![Series { symbol: "X".into(), bars }])
}

/// Places one order on a given bar, with a given kind.
struct OneOrder {
    at: usize,
    qty: f64,
    kind: Option<OrderKind>,
    seen_close: Option<f64>,
}

impl Strategy for OneOrder {
    fn name(&self) -> String {
        "one_order".into()
    }
    fn on_bar(&mut self, ctx: &mut Context<'_>) -> Result<(), StrategyError> {
        if ctx.index() == self.at {
            let close = ctx.bar(0).map(|b| b.close);
            self.seen_close = close;
            // Peek at this bar's close and try to trade at it.
            let kind = self.kind.unwrap_or(OrderKind::Limit(close.unwrap_or(0.0)));
            ctx.order(0, self.qty, kind);
        }
        Ok(())
    }
}

#[test]
fn a_strategy_peeking_at_the_close_is_filled_at_the_next_open_not_at_the_close() {
    let f = feed(vec![bar(0, 10.0, 10.5, 9.5, 10.0), bar(1, 10.4, 10.8, 10.2, 10.6), bar(2, 10.6, 10.7, 10.1, 10.2)]);
    let engine = Engine::new(EngineConfig { cash: 1000.0, ..Default::default() });
    let mut s = OneOrder { at: 0, qty: 10.0, kind: Some(OrderKind::Market), seen_close: None };
    let r = engine.run(&f, &mut s).expect("run");
    assert_eq!(s.seen_close, Some(10.0));
    assert_eq!(r.fills.len(), 1);
    assert_eq!(r.fills[0].price, 10.4, "market order fills at the next bar's open");
    assert_eq!(r.fills[0].time, 86_400);
    // A limit at the peeked close (10.0) cannot fill on bar 1 (low 10.2) and fills on bar 2,
    // where the low 10.1 is still above it: never.
    let mut s = OneOrder { at: 0, qty: 10.0, kind: None, seen_close: None };
    let r = engine.run(&f, &mut s).expect("run");
    assert!(r.fills.is_empty(), "{:?}", r.fills);
}

#[test]
fn limit_and_stop_orders_fill_when_the_range_crosses_at_the_documented_price() {
    let f = feed(vec![bar(0, 10.0, 10.5, 9.5, 10.0), bar(1, 9.0, 9.6, 8.8, 9.5), bar(2, 11.0, 11.5, 10.9, 11.2)]);
    let engine = Engine::new(EngineConfig { cash: 1000.0, ..Default::default() });
    // Buy limit 9.2 placed on bar 0: bar 1 opens at 9.0 (gap through the limit): fills at 9.0.
    let mut s = OneOrder { at: 0, qty: 1.0, kind: Some(OrderKind::Limit(9.2)), seen_close: None };
    assert_eq!(engine.run(&f, &mut s).expect("run").fills[0].price, 9.0);
    // Buy stop 10.8 placed on bar 0: bar 1's high 9.6 does not reach it; bar 2 opens at 11.0
    // above the stop: fills at 11.0 on bar 2.
    let mut s = OneOrder { at: 0, qty: 1.0, kind: Some(OrderKind::Stop(10.8)), seen_close: None };
    let r = engine.run(&f, &mut s).expect("run");
    assert_eq!((r.fills[0].price, r.fills[0].time), (11.0, 2 * 86_400));
}

#[test]
fn commissions_and_slippage_are_accounted_to_the_cent() {
    let f = feed(vec![bar(0, 50.0, 51.0, 49.0, 50.0), bar(1, 50.0, 51.0, 49.0, 50.5), bar(2, 52.0, 53.0, 51.0, 52.5)]);
    let costs = CostModel { per_share: 0.005, bps: 0.0, minimum: 1.0, slippage_bps: 10.0 };
    let engine = Engine::new(EngineConfig { cash: 10_000.0, costs, ..Default::default() });
    // Buy 150 shares on bar 0 -> bar 1 open 50.00 + 10 bp = 50.05; commission max(1, 0.75) = 1.00.
    let mut s = OneOrder { at: 0, qty: 150.0, kind: Some(OrderKind::Market), seen_close: None };
    let r = engine.run(&f, &mut s).expect("run");
    let fill = &r.fills[0];
    assert!((fill.price - 50.05).abs() < 1e-12);
    assert_eq!(fill.commission, 1.0);
    // Cash 10000 - 150 * 50.05 - 1 = 2491.50; equity at bar 2 = 2491.50 + 150 * 52.50 = 10366.50.
    let last = r.equity.last().expect("equity").1;
    assert!((last - 10_366.50).abs() < 0.005, "{last}");
    // 400 shares: commission 0.005 * 400 = 2.00 > minimum.
    assert!((costs.commission(400.0, 50.0) - 2.0).abs() < 1e-12);
}

#[test]
fn metrics_of_a_known_series_equal_their_formulas() {
    // Equity 100, 110, 99, 108.9: returns +10 %, -10 %, +10 %.
    let eq: Vec<(i64, f64)> = [100.0, 110.0, 99.0, 108.9].iter().enumerate().map(|(i, e)| (i as i64, *e)).collect();
    let m = metrics::compute(&eq, &[], 252.0);
    let r = [0.1, -0.1, 0.1];
    let mean = 0.1 / 3.0;
    let sd = (r.iter().map(|x: &f64| (x - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
    assert!((m.total_return - 0.089).abs() < 1e-12);
    assert!((m.volatility - sd * 252f64.sqrt()).abs() < 1e-12);
    assert!((m.sharpe - mean / sd * 252f64.sqrt()).abs() < 1e-9);
    let downside = (0.01f64 / 3.0).sqrt();
    assert!((m.sortino - mean / downside * 252f64.sqrt()).abs() < 1e-9);
    assert!((m.max_drawdown - 0.1).abs() < 1e-12, "110 -> 99 is a 10 % drawdown");
    assert_eq!(m.max_drawdown_bars, 2, "99 and 108.9 are both below the 110 peak");
    assert!((m.annual_return - (1.089f64.powf(252.0 / 3.0) - 1.0)).abs() < 1e-6 * m.annual_return.abs());
}

#[test]
fn buy_and_hold_equals_the_price_ratio_less_costs() {
    let path = tenor_testdata::shared("data/equities/spy_daily_1999_2020.csv");
    let s = tenor_backtest::data::load(&path, Some("SPY")).expect("SPY loads");
    let (open1, close_last) = (s.bars[1].open, s.bars[s.bars.len() - 1].close);
    let close0 = s.bars[0].close;
    let f = Feed::new(vec![s]);
    let costs = CostModel { per_share: 0.0, bps: 5.0, minimum: 0.0, slippage_bps: 2.0 };
    let cash = 1_000_000.0;
    let engine = Engine::new(EngineConfig { cash, costs, ..Default::default() });
    let mut bh = BuyAndHold::from_params(&Params::new()).expect("params");
    let r = engine.run(&f, &mut bh).expect("run");
    let shares = (0.99 * cash / close0).floor();
    let fill = open1 * (1.0 + 2e-4);
    let commission = 5e-4 * shares * fill;
    let expected = cash - shares * fill - commission + shares * close_last;
    let got = r.equity.last().expect("equity").1;
    assert!((got - expected).abs() < 0.005, "{got} vs {expected}");
    assert_eq!(r.fills.len(), 1);
}
