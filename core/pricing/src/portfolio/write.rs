//! Writing portfolios (the input format) and priced rows (the output format of `tenor price`).

use std::io::Write;

use super::error::PortfolioError;
use super::parse::COLUMNS;
use super::trade::Trade;

/// Columns of `tenor price`'s output, in order.
pub const OUTPUT_COLUMNS: [&str; 10] =
    ["id", "price", "stderr", "delta", "gamma", "vega", "theta", "rho", "method", "backend"];

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

fn cell(x: Option<f64>) -> String {
    x.map(number).unwrap_or_default()
}

/// `x` as the shortest text that reads back to the same `f64`: plain decimal between 1e-6 and
/// 1e16 in magnitude (and for 0), scientific notation outside (`1e300`, not 301 digits).
#[must_use]
pub fn number(x: f64) -> String {
    let a = x.abs();
    if a == 0.0 || !a.is_finite() || (1e-6..1e16).contains(&a) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

fn write_err(what: &str, e: impl std::fmt::Display) -> PortfolioError {
    PortfolioError::Write { what: what.to_owned(), message: e.to_string() }
}

/// Writes `rows` as the output CSV (header [`OUTPUT_COLUMNS`]) to `out`.
///
/// # Errors
/// [`PortfolioError::Write`] when the writer fails.
pub fn write_priced<W: Write>(out: W, rows: &[PricedRow]) -> Result<(), PortfolioError> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(OUTPUT_COLUMNS).map_err(|e| write_err("priced rows", e))?;
    for r in rows {
        w.write_record([
            r.id.clone(),
            number(r.price),
            cell(r.stderr),
            cell(r.delta),
            cell(r.gamma),
            cell(r.vega),
            cell(r.theta),
            cell(r.rho),
            r.method.clone(),
            r.backend.clone(),
        ])
        .map_err(|e| write_err("priced rows", e))?;
    }
    w.flush().map_err(|e| write_err("priced rows", e))
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
