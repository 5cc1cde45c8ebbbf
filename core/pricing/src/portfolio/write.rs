//! Writing portfolios (the input format) and priced rows (the output format of `tenor price`).

use std::io::Write;

use super::error::PortfolioError;
use super::parse::COLUMNS;
use super::trade::Trade;

/// Columns of `tenor price`'s output, in order.
pub const OUTPUT_COLUMNS: [&str; 10] =
    ["id", "price", "stderr", "delta", "gamma", "vega", "theta", "rho", "method", "backend"];

/// The `method` values of rows priced by Monte Carlo on the backend: `mc`, and `lsm` (the
/// Longstaff-Schwartz American of `--engine mc`); the engine rows that say so
/// ([`crate::engines::PricingEngine::monte_carlo`]).
pub const MONTE_CARLO_METHODS: [&str; 2] = [crate::engines::MC.method, crate::engines::LSM.method];

/// Whether a row's `method` is that of a Monte Carlo engine row ([`crate::engines::ENGINES`]).
#[must_use]
pub fn is_monte_carlo(method: &str) -> bool {
    crate::engines::PricingEngine::by_method(method).is_some_and(|e| e.monte_carlo)
}

/// One priced trade: a row of the output CSV. Greeks follow the spec's units (vega per 1.00 of
/// vol, rho per 1.00 of rate, theta per year as calendar time passes); `None` is written as an
/// empty cell (the method cannot produce it, or `stderr` of a deterministic method).
#[derive(Debug, Clone, PartialEq)]
pub struct PricedRow {
    /// Trade id.
    pub id: String,
    /// Present value in currency units.
    pub price: f64,
    /// Monte Carlo standard error of `price`; `None` for deterministic methods.
    pub stderr: Option<f64>,
    /// dV/dS.
    pub delta: Option<f64>,
    /// d2V/dS2.
    pub gamma: Option<f64>,
    /// dV/dsigma.
    pub vega: Option<f64>,
    /// dV/dt.
    pub theta: Option<f64>,
    /// dV/dr.
    pub rho: Option<f64>,
    /// Engine: `analytic` or `mc`.
    pub method: String,
    /// Where the numbers were computed: the backend name for Monte Carlo rows, `host` for
    /// closed forms evaluated on the host without the compute port.
    pub backend: String,
}

/// `x` as the shortest text that reads back to the same `f64`: plain decimal between 1e-6 and
/// 1e16 in magnitude (and for 0), scientific notation outside (`1e300`, not 301 digits).
#[must_use]
pub fn number(x: f64) -> String {
    let mut s = String::new();
    push_number(&mut s, x);
    s
}

/// Appends [`number`]`(x)` to `out` (no allocation of its own).
pub fn push_number(out: &mut String, x: f64) {
    use std::fmt::Write as _;
    let a = x.abs();
    // Writing to a String cannot fail.
    let _ =
        if a == 0.0 || !a.is_finite() || (1e-6..1e16).contains(&a) { write!(out, "{x}") } else { write!(out, "{x:e}") };
}

/// Rows formatted per task when [`write_priced`] formats on all cores.
const ROWS_PER_TASK: usize = 1024;

/// The CSV text of `rows` (no header), exactly as one `csv::Writer` writes them.
fn format_rows(rows: &[PricedRow]) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::with_capacity(rows.len() * 128));
    let mut text = String::with_capacity(32);
    for r in rows {
        w.write_field(&r.id)?;
        for x in [Some(r.price), r.stderr, r.delta, r.gamma, r.vega, r.theta, r.rho] {
            text.clear();
            if let Some(x) = x {
                push_number(&mut text, x);
            }
            w.write_field(&text)?;
        }
        w.write_field(&r.method)?;
        w.write_field(&r.backend)?;
        w.write_record(None::<&[u8]>)?;
    }
    w.into_inner().map_err(|e| csv::Error::from(e.into_error()))
}

fn write_err(what: &str, e: impl std::fmt::Display) -> PortfolioError {
    PortfolioError::Write { what: what.to_owned(), message: e.to_string() }
}

/// Writes `rows` as the output CSV (header [`OUTPUT_COLUMNS`]) to `out`.
///
/// # Errors
/// [`PortfolioError::Write`] when the writer fails.
pub fn write_priced<W: Write>(mut out: W, rows: &[PricedRow]) -> Result<(), PortfolioError> {
    use rayon::prelude::*;
    let mut w = csv::Writer::from_writer(&mut out);
    w.write_record(OUTPUT_COLUMNS).map_err(|e| write_err("priced rows", e))?;
    w.flush().map_err(|e| write_err("priced rows", e))?;
    drop(w);
    // The rows are formatted on all cores in pieces of ROWS_PER_TASK and written in order: the
    // same bytes as one writer (each record is self-contained), a few milliseconds for a book.
    let pieces: Vec<Result<Vec<u8>, csv::Error>> = rows.par_chunks(ROWS_PER_TASK).map(format_rows).collect();
    for piece in pieces {
        out.write_all(&piece.map_err(|e| write_err("priced rows", e))?).map_err(|e| write_err("priced rows", e))?;
    }
    out.flush().map_err(|e| write_err("priced rows", e))
}

/// Writes `trades` as a portfolio CSV with every column of [`COLUMNS`] (empty where not
/// applicable); [`super::read_portfolio`] reads it back to the same trades.
///
/// # Errors
/// [`PortfolioError::Write`] when the writer fails.
pub fn write_portfolio<W: Write>(out: W, trades: &[Trade]) -> Result<(), PortfolioError> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(COLUMNS).map_err(|e| write_err("portfolio", e))?;
    for t in trades {
        w.write_record(t.to_cells()).map_err(|e| write_err("portfolio", e))?;
    }
    w.flush().map_err(|e| write_err("portfolio", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows as one `csv::Writer` writes their cells (the writer before formatting on all
    /// cores): the oracle for the pieces' bytes.
    fn one_writer(rows: &[PricedRow]) -> Vec<u8> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(OUTPUT_COLUMNS).expect("header");
        let cell = |x: Option<f64>| {
            x.map(|x| {
                if x == 0.0 || (1e-6..1e16).contains(&x.abs()) || !x.is_finite() {
                    format!("{x}")
                } else {
                    format!("{x:e}")
                }
            })
            .unwrap_or_default()
        };
        for r in rows {
            w.write_record([
                r.id.clone(),
                cell(Some(r.price)),
                cell(r.stderr),
                cell(r.delta),
                cell(r.gamma),
                cell(r.vega),
                cell(r.theta),
                cell(r.rho),
                r.method.clone(),
                r.backend.clone(),
            ])
            .expect("row");
        }
        w.into_inner().expect("bytes")
    }

    #[test]
    fn rows_formatted_in_pieces_are_the_bytes_of_one_writer() {
        // More rows than three pieces, ids that need quoting, empty cells, extreme magnitudes.
        let ids = ["plain", "with,comma", "with \"quote\"", "line\nbreak", " spaced ", ""];
        let rows: Vec<PricedRow> = (0..3 * ROWS_PER_TASK + 17)
            .map(|i| {
                let x = (i as f64 + 0.5) * 1.234_567_890_123e-3;
                PricedRow {
                    id: format!("{}{i}", ids[i % ids.len()]),
                    price: if i % 7 == 0 { 1e300 * x } else { x },
                    stderr: (i % 3 != 0).then_some(x * 1e-9),
                    delta: (i % 2 == 0).then_some(-x),
                    gamma: Some(0.0),
                    vega: (i % 5 != 0).then_some(x * 1e17),
                    theta: Some(-0.0),
                    rho: None,
                    method: if i % 2 == 0 { "mc".into() } else { "analytic".into() },
                    backend: if i % 4 == 0 { "cuda".into() } else { "host".into() },
                }
            })
            .collect();
        let mut got = Vec::new();
        write_priced(&mut got, &rows).expect("written");
        assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(&one_writer(&rows)));
        let mut empty = Vec::new();
        write_priced(&mut empty, &[]).expect("written");
        assert_eq!(empty, b"id,price,stderr,delta,gamma,vega,theta,rho,method,backend\n");
    }
}
