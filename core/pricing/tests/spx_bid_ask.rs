//! The example SPX book against the market: every European quote priced at its quoted IV
//! (Black-Scholes-Merton with the book's Treasury rate and parity dividend) compared with its
//! own bid and ask, read from the committed `examples/data` files.
//!
//! A wrong convention (spot, day count, rate compounding, dividend sign, call/put swap) moves
//! most prices by far more than a spread, so the share inside the bid-ask is the check. The
//! misses are printed with their reasons (`cargo test -p tenor-pricing --test spx_bid_ask --
//! --nocapture`) and written by `tenor book spx` to `examples/spx_book_bid_ask_misses.csv`.
use std::path::PathBuf;

use tenor_pricing::market::spx::{check_quotes, expiry_params, MissReason, QuoteCheck};
use tenor_pricing::market::{read_cboe, read_par_curve};

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data")
}

fn checks() -> Vec<QuoteCheck> {
    let dir = examples().join("spx_cboe_2025-10-01");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 10, "expected the ten Cboe files in {}", dir.display());
    let chains: Vec<_> = files.iter().map(|f| read_cboe(f).expect("cboe file")).collect();
    let curve = read_par_curve(&examples().join("us_treasury_par_yield_2025_h1.csv"), chains[0].date).expect("curve");
    let (spot, _, expiries) = expiry_params(&chains, &curve).expect("expiries");
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
