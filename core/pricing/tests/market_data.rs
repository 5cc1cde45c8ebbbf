//! Market-data readers and the SPX book conventions, against hand-computed values.
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use tenor_pricing::market::cboe::{parse_cboe, Quote, StrikeRow};
use tenor_pricing::market::spx::{act365f, implied_dividend, parity_regression};
use tenor_pricing::market::treasury::{bey_to_continuous, tenor_years};
use tenor_pricing::market::{read_par_curve, MarketError};

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).expect("date")
}

#[test]
fn bond_equivalent_to_continuous() {
    // (1 + 0.04 / 2)^2 = e^r  =>  r = 2 ln 1.02 = 0.039605...
    assert!((bey_to_continuous(0.04) - 2.0 * 1.02_f64.ln()).abs() < 1e-15);
    assert!((bey_to_continuous(0.04) - 0.039_605_255_1).abs() < 1e-9);
    assert_eq!(bey_to_continuous(0.0), 0.0);
}

#[test]
fn tenor_labels() {
    assert_eq!(tenor_years("1 Mo"), Some(1.0 / 12.0));
    assert_eq!(tenor_years("1.5 Mo"), Some(0.125));
    assert_eq!(tenor_years("30 yr"), Some(30.0));
    assert_eq!(tenor_years("Date"), None);
}

#[test]
fn act365f_days() {
    // 2025-10-01 to 2026-04-17: 198 days.
    assert_eq!(act365f(date(2025, 10, 1), date(2026, 4, 17)), 198.0 / 365.0);
}

#[test]
fn treasury_curve_on_or_before_the_snapshot() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/us_treasury_par_yield_2025_h1.csv");
    // The file ends on 2025-07-11, before the snapshot: that row is the one used.
    let c = read_par_curve(&path, date(2025, 10, 1)).expect("curve");
    assert_eq!(c.date, date(2025, 7, 11));
    // Row of 2025-07-11: 6 Mo 4.31, 1 Yr 4.09, 2 Yr 3.9 (percent).
    assert!((c.par_yield(0.5) - 0.0431).abs() < 1e-12);
    assert!((c.par_yield(1.0) - 0.0409).abs() < 1e-12);
    assert!((c.par_yield(1.5) - 0.5 * (0.0409 + 0.039)).abs() < 1e-12);
    assert!((c.par_yield(0.75) - 0.5 * (0.0431 + 0.0409)).abs() < 1e-12);
    // An earlier date picks that day's row (2025-07-10: 1 Yr 4.07).
    let c = read_par_curve(&path, date(2025, 7, 10)).expect("curve");
    assert!((c.par_yield(1.0) - 0.0407).abs() < 1e-12);
    // Before the first row: an error, not a guess.
    assert!(matches!(read_par_curve(&path, date(2024, 12, 31)), Err(MarketError::Insufficient(_))));
}

const CBOE: &str = "
S&P 500 INDEX,Last: 6711.2002,Change:  22.7402
\"Date: October 1, 2025 at 6:01 PM EDT\",Bid: 6661.1099,Ask: 6743.9702,Size: 1*1,Volume: 0
Expiration Date,Calls,Last Sale,Net,Bid,Ask,Volume,IV,Delta,Gamma,Open Interest,Strike,Puts,Last Sale,Net,Bid,Ask,Volume,IV,Delta,Gamma,Open Interest
Fri Apr 17 2026,SPX260417C01400000,5268.39,-14.9601,5303.2,5320.7,1,0.6674,1,0,1,1400.00,SPX260417P01400000,1.05,0.175,0.7,1,1,0.7434,-0.0007,0,257
";

#[test]
fn cboe_layout() {
    let c = parse_cboe(CBOE, Path::new("q.csv")).expect("parsed");
    assert_eq!(c.spot, 6711.2002);
    assert_eq!(c.date, date(2025, 10, 1));
    assert_eq!(c.rows.len(), 1);
    let r = &c.rows[0];
    assert_eq!((r.expiry, r.root.as_str(), r.strike, r.line), (date(2026, 4, 17), "SPX", 1400.0, 5));
    assert_eq!((r.call.bid, r.call.ask, r.call.iv), (5303.2, 5320.7, 0.6674));
    assert_eq!((r.put.bid, r.put.ask, r.put.iv), (0.7, 1.0, 0.7434));
    let bad = CBOE.replace("1400.00", "14OO");
    match parse_cboe(&bad, Path::new("q.csv")) {
        Err(MarketError::Format { line: 5, message, .. }) => assert!(message.contains("Strike"), "{message}"),
        other => panic!("{other:?}"),
    }
}

/// Quotes whose mids satisfy parity exactly for (S, r, q, T).
fn parity_rows(s: f64, r: f64, q: f64, t: f64) -> Vec<StrikeRow> {
    (0..21)
        .map(|i| {
            let k = s * (0.9 + 0.01 * f64::from(i));
            let put_mid = 400.0 + 10.0 * f64::from(i);
            let call_mid = put_mid + s * (-q * t).exp() - k * (-r * t).exp();
            let quote = |mid: f64| Quote { symbol: String::new(), bid: mid - 0.5, ask: mid + 0.5, iv: 0.2 };
            StrikeRow {
                expiry: date(2026, 12, 18),
                root: "SPX".into(),
                strike: k,
                call: quote(call_mid),
                put: quote(put_mid),
                line: 0,
            }
        })
        .collect()
}

#[test]
fn dividend_from_put_call_parity() {
    let (s, r, q, t) = (6711.2002, 0.04, 0.0125, 1.2);
    let rows = parity_rows(s, r, q, t);
    let (got, n) = implied_dividend(&rows, s, r, t, 0.055).expect("fit");
    assert!((got - q).abs() < 1e-12, "{got}");
    assert_eq!(n, 11, "strikes 95 % .. 105 % of spot (band 5.5 %)");
    let (d, f) = parity_regression(&rows, s, 0.10).expect("regression");
    assert!((d - (-r * t).exp()).abs() < 1e-12, "{d}");
    assert!((f - s * ((r - q) * t).exp()).abs() < 1e-8, "{f}");
}
