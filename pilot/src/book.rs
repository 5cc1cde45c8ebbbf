//! The "book" workload: trades per second for a replicated book on a backend, by kind, Greeks
//! off and on, every row by Monte Carlo (`--engine mc`, so the backend carries the book) through
//! the book pricer's batch launches ([`tenor_pricing::portfolio::price_book`]).
//!
//! The book is one SPX-like trade per kind (spot 6711.2, the example book's 2026-06-18 rate and
//! dividend) replicated [`copies`] times with strikes spread over +/- 5 % and unique ids, so a
//! chunk holds many products per kind as the example book replicated does.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;
use tenor_ports::{Compute, ComputeError};
use tenor_pricing::portfolio::{parse_portfolio, price_book, BookConfig, Engine};

use super::Suite;

/// One measurement.
#[derive(Debug, Clone, Serialize)]
pub struct BookRow {
    /// Backend.
    pub backend: String,
    /// Trade kind (`european`, `barrier`, `barrier_discrete`, `asian_geo`, `asian_arith`).
    pub kind: String,
    /// Whether Greeks were computed (bump-and-revalue: 7 to 8 more valuations per trade).
    pub greeks: bool,
    /// Trades priced.
    pub trades: usize,
    /// Monte Carlo paths per valuation.
    pub paths: u64,
    /// Wall time of the pricing call (median of the repeats), seconds.
    pub seconds: f64,
    /// Trades per second at the median.
    pub trades_per_s: f64,
}

/// The portfolio CSV header.
const HEADER: &str =
    "id,kind,type,spot,strike,maturity,rate,dividend,vol,barrier,barrier_type,rebate,fixings,v0,kappa,theta,xi,rho";

/// One trade per kind: (kind name, the CSV row after `id` with `{K}` for the strike).
pub const KINDS: [(&str, &str); 5] = [
    ("european", "european,call,6711.2002,{K},0.7123,0.0406,0.0099,0.17,,,,,,,,,"),
    ("barrier", "barrier,call,6711.2002,{K},0.7123,0.0406,0.0099,0.17,7500,up_out,0,,,,,,"),
    ("barrier_discrete", "barrier,put,6711.2002,{K},0.7123,0.0406,0.0099,0.19,6000,down_out,0,52,,,,,"),
    ("asian_geo", "asian_geo,call,6711.2002,{K},0.7123,0.0406,0.0099,0.17,,,,52,,,,,"),
    ("asian_arith", "asian_arith,call,6711.2002,{K},0.7123,0.0406,0.0099,0.17,,,,52,,,,,"),
];

/// Copies of each trade.
pub fn copies(suite: Suite) -> usize {
    match suite {
        Suite::Quick => 16,
        Suite::Default => 1024,
    }
}

/// Paths per valuation.
pub fn paths(suite: Suite) -> u64 {
    match suite {
        Suite::Quick => 4_000,
        Suite::Default => 200_000,
    }
}

/// The book of `kind_row` replicated `n` times (strikes 95 % to 105 % of 6711.2).
pub fn book(kind: &str, kind_row: &str, n: usize) -> Result<Vec<tenor_pricing::portfolio::Trade>, ComputeError> {
    let mut text = format!("{HEADER}\n");
    for k in 0..n {
        let strike = 6711.2002 * (0.95 + 0.1 * (k % 101) as f64 / 100.0);
        text += &format!("{kind}_{k},{}\n", kind_row.replace("{K}", &format!("{strike:.2}")));
    }
    let p = parse_portfolio(text.as_bytes(), Path::new("pilot-book.csv"))
        .map_err(|e| ComputeError::InvalidArgument(format!("pilot book {kind}: {e}")))?;
    match p.errors.first() {
        Some(e) => Err(ComputeError::InvalidArgument(format!("pilot book {kind}: {e}"))),
        None => Ok(p.trades),
    }
}

/// Measures every kind, Greeks off and on, on `dev` (named `backend`): a warm-up call (kernel
/// loading), then the median of three timed calls.
///
/// # Errors
/// A row that could not be priced (named with its error) or the book not parsing.
pub fn measure(backend: &str, dev: &dyn Compute, suite: Suite) -> Result<Vec<BookRow>, ComputeError> {
    let mut rows = Vec::new();
    for (kind, kind_row) in KINDS {
        let trades = book(kind, kind_row, copies(suite))?;
        for greeks in [false, true] {
            let cfg = BookConfig { engine: Engine::Mc, paths: paths(suite), greeks, ..BookConfig::default() };
            let mut times = Vec::with_capacity(3);
            for repeat in 0..4 {
                let t0 = Instant::now();
                let out = price_book(dev, &trades, &cfg, &mut |_| {});
                let s = t0.elapsed().as_secs_f64();
                if let Some((i, Err(e))) = out.iter().enumerate().find(|(_, r)| r.is_err()) {
                    return Err(ComputeError::InvalidArgument(format!("pilot book {kind}: trade {i}: {e}")));
                }
                if repeat > 0 {
                    times.push(s);
                }
            }
            times.sort_by(f64::total_cmp);
            let seconds = times[times.len() / 2];
            rows.push(BookRow {
                backend: backend.to_owned(),
                kind: kind.to_owned(),
                greeks,
                trades: trades.len(),
                paths: paths(suite),
                seconds,
                trades_per_s: trades.len() as f64 / seconds,
            });
        }
    }
    Ok(rows)
}
