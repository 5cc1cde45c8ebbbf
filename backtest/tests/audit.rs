//! Engine rules found missing or wrong by the audit, each with a hand-computed expectation or
//! values read from the shared data files (shared/data/README.md).

use chrono::NaiveDate;
use tenor_backtest::data::{load, DAILY_STAMP_SECONDS};
use tenor_backtest::engine::{Context, Fill, Strategy, StrategyError};
use tenor_backtest::strategies::{buy_and_hold::BuyAndHold, Params};
use tenor_backtest::{Bar, CostModel, Engine, EngineConfig, Feed, OrderKind, Series};

fn bar(day: i64, o: f64, h: f64, l: f64, c: f64) -> Bar {
    Bar { time: day * 86_400, open: o, high: h, low: l, close: c, volume: 1000.0, dividend: 0.0 }
}

fn engine(cash: f64) -> Engine {
    Engine::new(EngineConfig { cash, ..Default::default() })
}

/// The stamp of a daily bar of `date` (YYYY-MM-DD).
fn day(date: &str) -> i64 {
    NaiveDate::parse_from_str(date, "%Y-%m-%d")
        .expect("date")
        .and_hms_opt(0, 0, 0)
        .expect("midnight")
        .and_utc()
        .timestamp()
        + DAILY_STAMP_SECONDS
}

/// AAPL daily bars (zipline csvdir) from `from` to `to` inclusive.
fn aapl(from: &str, to: &str) -> Feed {
    let mut s = load(&tenor_testdata::shared("data/equities/zipline_csvdir_2012_2014/AAPL.csv"), None).expect("AAPL");
    s.bars.retain(|b| (day(from)..=day(to)).contains(&b.time));
    Feed::new(vec![s])
}

/// Places scripted orders: `(bar index, symbol, quantity, kind)`; optionally cancels every
/// other open order when one fills (one-cancels-other).
struct Script {
    orders: Vec<(usize, usize, f64, OrderKind)>,
    oco: bool,
}

impl Strategy for Script {
    fn name(&self) -> String {
        "script".into()
    }
    fn on_bar(&mut self, ctx: &mut Context<'_>) -> Result<(), StrategyError> {
        for &(t, s, q, k) in &self.orders {
            if t == ctx.index() {
                ctx.order(s, q, k);
            }
        }
        Ok(())
    }
    fn on_fill(&mut self, ctx: &mut Context<'_>, _fill: &Fill) -> Result<(), StrategyError> {
        if self.oco {
            let ids: Vec<u64> = ctx.open_orders().iter().map(|o| o.id).collect();
            for id in ids {
                ctx.cancel(id);
            }
        }
        Ok(())
    }
}

#[test]
fn a_buyer_at_the_ex_date_open_gets_no_dividend_a_holder_over_it_does() {
    // AAPL goes ex 0.37857 on 2012-08-09. Cash 100000, no costs.
    // Feed from 2012-08-08: buy_and_hold sizes on the 08-08 close 88.55143 (floor(99000 /
    // 88.55143) = 1117 shares) and buys at the 08-09 open: not a holder of record.
    let mut bh = BuyAndHold::from_params(&Params::new()).expect("params");
    let r = engine(100_000.0).run(&aapl("2012-08-08", "2012-08-13"), &mut bh).expect("run");
    assert_eq!((r.fills[0].quantity, r.fills[0].price), (1117.0, 88.264282));
    assert_eq!(r.dividends, 0.0, "shares bought at the ex-date open get no dividend");
    // Feed from 2012-08-07: floor(99000 / 88.701431) = 1116 shares bought at the 08-08 open,
    // held over the ex-date: 1116 x 0.37857 = 422.48412.
    let mut bh = BuyAndHold::from_params(&Params::new()).expect("params");
    let r = engine(100_000.0).run(&aapl("2012-08-07", "2012-08-13"), &mut bh).expect("run");
    assert_eq!(r.fills[0].quantity, 1116.0);
    assert!((r.dividends - 422.48412).abs() < 1e-9, "{}", r.dividends);
}

#[test]
fn a_seller_at_the_ex_date_open_keeps_the_dividend() {
    // Buy 100 after 08-07 (fills at the 08-08 open 88.484283), sell 100 after 08-08 (fills at
    // the 08-09 open 88.264282, the ex-date): the holder at the 08-08 close gets 100 x 0.37857.
    let mut s =
        Script { orders: vec![(0, 0, 100.0, OrderKind::Market), (1, 0, -100.0, OrderKind::Market)], oco: false };
    let r = engine(100_000.0).run(&aapl("2012-08-07", "2012-08-13"), &mut s).expect("run");
    assert_eq!(r.fills.len(), 2);
    assert!((r.dividends - 37.857).abs() < 1e-9, "{}", r.dividends);
    // Cash only from here on: 100000 + 100 x (88.264282 - 88.484283) + 37.857 = 100015.8569.
    let last = r.equity.last().expect("equity").1;
    assert!((last - 100_015.856_9).abs() < 1e-6, "{last}");
}

#[test]
fn the_aapl_7_for_1_split_is_not_applied_twice() {
    // Prices are already split-adjusted (README). buy_and_hold, cash 100000, no costs, on
    // 2014-06-04..11: sized on the 06-04 close 92.117142: floor(99000 / 92.117142) = 1074 shares,
    // bought at the 06-05 open 92.314285; cash left 100000 - 1074 x 92.314285 = 854.45791.
    // Equity on 2014-06-10 (close 94.25): 854.45791 + 1074 x 94.25 = 102078.95791.
    let f = aapl("2014-06-04", "2014-06-11");
    assert_eq!(f.len(), 6);
    let mut bh = BuyAndHold::from_params(&Params::new()).expect("params");
    let r = engine(100_000.0).run(&f, &mut bh).expect("run");
    assert_eq!((r.fills[0].quantity, r.fills[0].price), (1074.0, 92.314285));
    let (t, e) = r.equity[4];
    assert_eq!(t, day("2014-06-10"));
    assert!((e - 102_078.96).abs() < 0.005, "{e}");
}

/// Records, at each minute bar, the time of the latest daily bar it can see.
struct SeesDaily {
    seen: Vec<(i64, Option<(i64, f64)>)>,
}

impl Strategy for SeesDaily {
    fn name(&self) -> String {
        "sees_daily".into()
    }
    fn on_bar(&mut self, ctx: &mut Context<'_>) -> Result<(), StrategyError> {
        if let Some(m) = ctx.bar(0) {
            let d = ctx.history(1).next_back().map(|b| (b.time, b.close));
            self.seen.push((m.time, d));
        }
        Ok(())
    }
}

#[test]
fn a_minute_bar_of_date_d_sees_the_daily_close_of_d_minus_1_only() {
    let minute =
        load(&tenor_testdata::shared("data/intraday/spy_minute_2011-03_utc.csv"), Some("SPYm")).expect("minute");
    let mut daily = load(&tenor_testdata::shared("data/equities/spy_daily_1999_2020.csv"), Some("SPY")).expect("daily");
    daily.bars.retain(|b| (day("2011-02-25")..=day("2011-03-31")).contains(&b.time));
    let daily_times: Vec<i64> = daily.bars.iter().map(|b| b.time).collect();
    let feed = Feed::new(vec![minute, daily]);
    let mut s = SeesDaily { seen: vec![] };
    engine(1e6).run(&feed, &mut s).expect("run");
    let mut checked = 0;
    for (t, seen) in &s.seen {
        let (date, secs) = (t.div_euclid(86_400), t.rem_euclid(86_400));
        // Regular session 09:31-16:00 ET: 14:31-21:00 UTC before the DST switch of 2011-03-13,
        // 13:31-20:00 UTC from it on (README).
        let open = if *t < day("2011-03-13") - DAILY_STAMP_SECONDS { 14 * 3600 + 60 } else { 13 * 3600 + 60 };
        if !(open..=open + 389 * 60).contains(&secs) {
            continue;
        }
        // The latest daily bar dated before D (the previous session).
        let prev = daily_times.iter().rev().find(|&&d| d.div_euclid(86_400) < date).copied();
        assert_eq!(seen.map(|x| x.0), prev, "minute bar at {t} sees a daily bar of its own date");
        checked += 1;
    }
    // March 2011 has 23 weekdays and no US market holiday: 23 sessions of 390 regular-session
    // bars (the data README says 22 sessions; counting the file gives 23, each with 390).
    assert_eq!(checked, 23 * 390);
    // 2011-03-09 14:31 UTC (09:31 ET): the daily close visible is 2011-03-08's 132.58, not
    // 2011-03-09's 132.39 (the close of the 16:00 ET minute bar).
    let t = day("2011-03-09") - DAILY_STAMP_SECONDS + 14 * 3600 + 31 * 60;
    let seen = s.seen.iter().find(|x| x.0 == t).expect("the 09:31 ET bar").1;
    assert_eq!(seen, Some((day("2011-03-08"), 132.58)));
}

#[test]
fn cancelling_in_on_fill_stops_an_order_due_on_the_same_bar() {
    // Bar 1 (open 10, high 11.5, low 8.5) crosses both a sell limit at 11 and a sell stop at 9
    // placed on bar 0. The limit was placed first and fills first, at max(10, 11) = 11; its
    // on_fill cancels the stop, which must not fill.
    let f = Feed::new(vec![Series {
        symbol: "X".into(),
        bars: vec![bar(0, 10.0, 10.2, 9.8, 10.0), bar(1, 10.0, 11.5, 8.5, 10.0), bar(2, 10.0, 10.1, 9.9, 10.0)],
    }]);
    let orders = vec![(0, 0, -5.0, OrderKind::Limit(11.0)), (0, 0, -5.0, OrderKind::Stop(9.0))];
    let r = engine(1000.0).run(&f, &mut Script { orders: orders.clone(), oco: true }).expect("run");
    assert_eq!(r.fills.len(), 1, "{:?}", r.fills);
    assert_eq!((r.fills[0].quantity, r.fills[0].price), (-5.0, 11.0));
    // Without the cancel both fill on bar 1 (the stop at min(10, 9) = 9).
    let r = engine(1000.0).run(&f, &mut Script { orders, oco: false }).expect("run");
    assert_eq!(r.fills.iter().map(|x| x.price).collect::<Vec<_>>(), vec![11.0, 9.0]);
}

#[test]
fn sell_limit_and_sell_stop_fill_at_the_documented_price() {
    let f = Feed::new(vec![Series {
        symbol: "X".into(),
        bars: vec![bar(0, 10.0, 10.2, 9.8, 10.0), bar(1, 10.4, 11.0, 9.3, 10.0), bar(2, 11.2, 11.4, 8.8, 9.0)],
    }]);
    let one = |k: OrderKind, at: usize| Script { orders: vec![(at, 0, -1.0, k)], oco: false };
    let price = |k: OrderKind, at: usize, slip: f64| {
        let costs = CostModel { slippage_bps: slip, ..Default::default() };
        let e = Engine::new(EngineConfig { cash: 1000.0, costs, ..Default::default() });
        let r = e.run(&f, &mut one(k, at)).expect("run");
        r.fills.first().map(|x| (x.time / 86_400, x.price))
    };
    // Sell limit 10.8 on bar 1 (open 10.4, high 11.0): at max(10.4, 10.8) = 10.8, no slippage.
    assert_eq!(price(OrderKind::Limit(10.8), 0, 10.0), Some((1, 10.8)));
    // Sell limit 10.8 placed on bar 1, bar 2 gaps up to 11.2: at the better open 11.2.
    assert_eq!(price(OrderKind::Limit(10.8), 1, 0.0), Some((2, 11.2)));
    // Sell limit 11.5: no bar's high reaches it.
    assert_eq!(price(OrderKind::Limit(11.5), 0, 0.0), None);
    // Sell stop 9.5 on bar 1 (open 10.4, low 9.3): at min(10.4, 9.5) = 9.5, less 10 bp: 9.4905.
    let (t, p) = price(OrderKind::Stop(9.5), 0, 10.0).expect("fills");
    assert_eq!(t, 1);
    assert!((p - 9.4905).abs() < 1e-12, "{p}");
    // Sell stop 11.3 placed on bar 1, bar 2 opens at 11.2 below it: at the open 11.2.
    assert_eq!(price(OrderKind::Stop(11.3), 1, 0.0), Some((2, 11.2)));
}

#[test]
fn an_order_waits_for_its_symbols_next_bar_and_equity_uses_the_last_close() {
    // A trades on days 0-4; B only on days 0, 2 and 3.
    let a: Vec<Bar> = (0..5).map(|d| bar(d, 50.0, 51.0, 49.0, 50.0)).collect();
    let b = vec![bar(0, 20.0, 20.5, 19.5, 20.0), bar(2, 21.0, 22.5, 20.5, 22.0), bar(3, 22.0, 23.5, 21.5, 23.0)];
    let f = Feed::new(vec![Series { symbol: "A".into(), bars: a }, Series { symbol: "B".into(), bars: b }]);
    let mut s = Script { orders: vec![(0, 1, 10.0, OrderKind::Market)], oco: false };
    let r = engine(1000.0).run(&f, &mut s).expect("run");
    // No B bar on day 1: the order waits and fills at day 2's open 21.
    assert_eq!(r.fills.len(), 1);
    assert_eq!((r.fills[0].time, r.fills[0].price), (2 * 86_400, 21.0));
    // Equity: day 1 1000 (no position); day 2 1000 - 210 + 10 x 22 = 1010; day 3 1020; day 4
    // (no B bar) values B at its last close 23: 1020.
    let eq: Vec<f64> = r.equity.iter().map(|x| x.1).collect();
    assert_eq!(eq, vec![1000.0, 1000.0, 1010.0, 1020.0, 1020.0]);
}

#[test]
fn turnover_and_hit_rate_equal_their_hand_computed_values() {
    // Opens 10, 10, 12, 11, 10; closes 10, 11, 12, 10.5, 10. Buy 10 after bar 0 (at 10), sell
    // after bar 1 (at 12: a win), buy after bar 2 (at 11), sell after bar 3 (at 10: a loss).
    let bars = vec![
        bar(0, 10.0, 10.5, 9.5, 10.0),
        bar(1, 10.0, 11.5, 9.5, 11.0),
        bar(2, 12.0, 12.5, 11.5, 12.0),
        bar(3, 11.0, 11.5, 10.0, 10.5),
        bar(4, 10.0, 10.5, 9.5, 10.0),
    ];
    let f = Feed::new(vec![Series { symbol: "X".into(), bars }]);
    let orders = (0..4).map(|t| (t, 0, if t % 2 == 0 { 10.0 } else { -10.0 }, OrderKind::Market)).collect();
    let r = engine(1000.0).run(&f, &mut Script { orders, oco: false }).expect("run");
    // Equity 1000, 1010, 1020, 1015, 1010: mean 1011. Notional 100 + 120 + 110 + 100 = 430 over
    // 4 returns of 252 a year: turnover 430 / 1011 / (4 / 252) = 26.7952...
    let eq: Vec<f64> = r.equity.iter().map(|x| x.1).collect();
    assert_eq!(eq, vec![1000.0, 1010.0, 1020.0, 1015.0, 1010.0]);
    assert!((r.metrics.turnover - 430.0 * 252.0 / (4.0 * 1011.0)).abs() < 1e-12, "{}", r.metrics.turnover);
    assert!((r.metrics.turnover - 26.795_252_2).abs() < 1e-6);
    // Two closing fills, one winning: hit rate 0.5.
    assert_eq!(r.metrics.hit_rate, 0.5);
    assert_eq!(r.metrics.trades, 4);
}

fn tmp(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tenor-bt-audit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

#[test]
fn a_wrong_cell_count_names_the_line_and_both_counts() {
    let p = tmp(
        "short.csv",
        "date,open,high,low,close,volume,dividend,split\n2012-01-03,1,2,0.5,1.5,10,0,1\n2012-01-04,1,2\n",
    );
    match load(&p, None) {
        Err(e @ tenor_backtest::DataError::Cells { line: 3, expected: 8, found: 3, .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("short.csv:3: 3 cells, expected 8") && !msg.contains("column"), "{msg}");
        }
        other => panic!("expected a cell-count error, got {other:?}"),
    }
}

#[test]
fn a_file_without_bars_is_an_error_naming_it() {
    for (name, text) in [("hdr.csv", "date,open,high,low,close,volume,dividend,split\n"), ("empty.csv", "")] {
        let p = tmp(name, text);
        match load(&p, None) {
            Err(e @ tenor_backtest::DataError::Empty { .. }) => assert!(e.to_string().contains(name), "{e}"),
            other => panic!("{name}: expected an empty-data error, got {other:?}"),
        }
    }
}

#[test]
fn straddle_parameters_are_refused_up_front() {
    use tenor_backtest::strategies::{straddle::ShortStraddle, ParamError};
    let compute: std::sync::Arc<dyn tenor_ports::Compute> = std::sync::Arc::new(tenor_cpu::cpu().expect("cpu"));
    for (name, value) in [
        ("seed", -1.0),
        ("seed", 1.7),
        ("rate", f64::NAN),
        ("rate", 5.0),
        ("dividend", f64::INFINITY),
        ("contracts", f64::NAN),
        ("paths", f64::INFINITY),
    ] {
        let p: Params = [(name.to_owned(), value)].into_iter().collect();
        match ShortStraddle::from_params(&p, compute.clone()) {
            Err(ParamError::Invalid { name: n, value: v, .. }) => {
                assert_eq!(n, name);
                assert!(v.to_bits() == value.to_bits(), "{name}: the error shows the value given, {v}");
            }
            other => panic!("{name} = {value}: expected an error, got {other:?}"),
        }
    }
    let p: Params = [("seed".to_owned(), 0.0), ("rate".to_owned(), -0.01)].into_iter().collect();
    assert!(ShortStraddle::from_params(&p, compute).is_ok(), "seed 0 and a negative rate are valid");
}

/// `roll` below 2 and `paths` that are not an even whole number of at least 4 are refused,
/// naming the parameter and the allowed range (they used to run with 4 paths for `paths=3`
/// and with a one-bar roll); values in range are used exactly as given.
#[test]
fn straddle_roll_and_paths_outside_their_range_are_refused_not_adjusted() {
    use tenor_backtest::strategies::{straddle::ShortStraddle, ParamError};
    let compute: std::sync::Arc<dyn tenor_ports::Compute> = std::sync::Arc::new(tenor_cpu::cpu().expect("cpu"));
    for (name, value, range) in [
        ("roll", 1.0, "at least 2"),
        ("paths", 3.0, "even whole number of at least 4"),
        ("paths", 2.0, "even whole number of at least 4"),
        ("paths", 4097.0, "even whole number of at least 4"),
        ("paths", 4.5, "even whole number of at least 4"),
    ] {
        let p: Params = [(name.to_owned(), value)].into_iter().collect();
        match ShortStraddle::from_params(&p, compute.clone()) {
            Err(e @ ParamError::Invalid { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains(name) && msg.contains(range), "{name} = {value}: {msg}");
            }
            other => panic!("{name} = {value}: expected an error, got {other:?}"),
        }
    }
    let p: Params = [("paths".to_owned(), 4.0), ("roll".to_owned(), 2.0)].into_iter().collect();
    let s = ShortStraddle::from_params(&p, compute).expect("paths 4 and roll 2 are valid");
    assert_eq!((s.paths, s.roll), (4, 2), "used as given");
}
