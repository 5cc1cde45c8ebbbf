//! The example SPX book's conventions against hand-computed values (day count, the dividend and
//! the discount factor implied by put-call parity), and the book against the market: every
//! European quote priced at its quoted IV (Black-Scholes-Merton with the book's Treasury rate
//! and parity dividend) compared with its own bid and ask, read from the committed
//! `examples/data` files.
//!
//! A wrong convention (spot, day count, rate compounding, dividend sign, call/put swap) moves
//! most prices by far more than a spread, so the share inside the bid-ask is the check. The
//! misses are printed with their reasons (`cargo test -p tenor-market --test spx_book --
//! --nocapture`) and written by `tenor book spx` to `examples/spx_book_bid_ask_misses.csv`.
use std::path::PathBuf;

use chrono::NaiveDate;
use tenor_market::cboe::{cboe_files, load_cboe_files};
use tenor_market::quotes::{OptionQuote, Settlement};
use tenor_market::spx_book::{
    act365f, check_quotes, expiry_params, implied_dividend, parity_regression, MissReason, QuoteCheck, StrikeRow,
};
use tenor_market::treasury::load_par_curve;
use tenor_pricing::types::OptionType;

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).expect("date")
}

#[test]
fn act365f_days() {
    // 2025-10-01 to 2026-04-17: 198 days.
    assert_eq!(act365f(date(2025, 10, 1), date(2026, 4, 17)), 198.0 / 365.0);
}

/// Quotes whose mids satisfy parity exactly for (S, r, q, T).
fn parity_rows(s: f64, r: f64, q: f64, t: f64) -> Vec<StrikeRow> {
    (0..21)
        .map(|i| {
            let k = s * (0.9 + 0.01 * f64::from(i));
            let put_mid = 400.0 + 10.0 * f64::from(i);
            let call_mid = put_mid + s * (-q * t).exp() - k * (-r * t).exp();
            let quote = |mid: f64, option_type: OptionType| OptionQuote {
                symbol: String::new(),
                root: "SPX".into(),
                expiry: date(2026, 12, 18),
                settlement: Settlement::Am,
                option_type,
                strike: k,
                bid: mid - 0.5,
                ask: mid + 0.5,
                last: mid,
                vendor_iv: Some(0.2),
                line: 0,
            };
            StrikeRow {
                expiry: date(2026, 12, 18),
                strike: k,
                call: quote(call_mid, OptionType::Call),
                put: quote(put_mid, OptionType::Put),
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

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data")
}

fn checks() -> Vec<QuoteCheck> {
    let dir = examples().join("spx_cboe_2025-10-01");
    let files = cboe_files(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    assert_eq!(files.len(), 10, "expected the ten Cboe files in {}", dir.display());
    let chain = load_cboe_files(&files, &dir.display().to_string()).expect("cboe files");
    let curve =
        load_par_curve(&examples().join("us_treasury_par_yield_2025_h1.csv"), chain.as_of.date()).expect("curve");
    let (spot, _, expiries) = expiry_params(&chain, &curve).expect("expiries");
    assert_eq!(spot, 6711.2002, "spot from the file header");
    check_quotes(spot, &expiries).expect("priced")
}

#[test]
fn europeans_at_quoted_iv_land_in_bid_ask() {
    let checks = checks();
    // 1914 quotes in the files, 16 with IV 0 (skipped by the book too).
    assert_eq!(checks.len(), 1898);
    let inside = checks.iter().filter(|c| c.inside()).count();
    let by = |r: MissReason| checks.iter().filter(|c| c.reason() == Some(r)).count();
    let (rounding, discounting) = (by(MissReason::IvRounding), by(MissReason::Discounting));
    println!(
        "{} quotes: {inside} inside, {rounding} IV rounding, {discounting} discounting, {} deep ITM, {} IV inconsistent",
        checks.len(),
        by(MissReason::DeepInTheMoney),
        by(MissReason::IvInconsistent)
    );
    for c in checks.iter().filter(|c| !c.inside()) {
        println!(
            "{} K={} bid={} ask={} iv={} model={:.3} market-discounted={:.3} miss={:.3} rounding={:.3} delta={:.3} {:?}",
            c.symbol,
            c.strike,
            c.bid,
            c.ask,
            c.iv,
            c.model,
            c.market_model,
            c.miss(),
            c.rounding(),
            c.delta,
            c.reason()
        );
    }
    // At the book's own parameters, nine in ten quotes price inside their bid-ask ...
    assert!(inside * 10 >= checks.len() * 9, "only {inside} of {} inside the bid-ask", checks.len());
    // ... and with the IV's rounding and the market's own discounting, nineteen in twenty.
    let explained = inside + rounding + discounting;
    assert!(explained * 20 >= checks.len() * 19, "only {explained} of {} inside or explained", checks.len());
}

#[test]
fn near_the_money_am_settled_quotes_are_inside_or_explained() {
    // Where the IV is best determined (|delta| in [0.25, 0.75]) on the AM-settled monthlies,
    // every quote is inside its bid-ask or explained by IV rounding or discounting.
    let bad: Vec<String> = checks()
        .iter()
        .filter(|c| c.symbol.starts_with("SPX2") && (0.25..=0.75).contains(&c.delta.abs()))
        .filter(|c| matches!(c.reason(), Some(MissReason::DeepInTheMoney | MissReason::IvInconsistent)))
        .map(|c| format!("{} model {:.3} bid {} ask {}", c.symbol, c.model, c.bid, c.ask))
        .collect();
    assert!(bad.is_empty(), "unexplained near-the-money misses: {bad:?}");
}
