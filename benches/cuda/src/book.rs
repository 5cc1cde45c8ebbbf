//! Reading a portfolio CSV (`shared/spec/portfolio-csv.md`) into Monte Carlo contracts.
//! Kinds without a fused kernel here (`american`, `heston`) are listed as skipped, with the
//! reason, not dropped silently.

use std::collections::HashMap;
use std::path::Path;

use crate::mc::{Contract, Product};

/// A malformed book.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The file cannot be read or is not CSV.
    #[error("{file}: {message}")]
    Read {
        /// File name.
        file: String,
        /// What went wrong.
        message: String,
    },
    /// A cell is missing or malformed.
    #[error("{file}, line {line}, column {column}: {message}")]
    Cell {
        /// File name.
        file: String,
        /// 1-based line.
        line: u64,
        /// Column name.
        column: String,
        /// What is wrong.
        message: String,
    },
}

/// The book: priceable trades by id, and skipped trades with the reason.
#[derive(Debug, Default)]
pub struct Book {
    /// Trades with a fused Monte Carlo kernel.
    pub trades: Vec<(String, Contract)>,
    /// (id, reason) of the trades this tool does not price.
    pub skipped: Vec<(String, String)>,
}

/// Reads `path`.
///
/// # Errors
/// [`BookError`] naming the file, line and column.
pub fn read(path: &Path) -> Result<Book, BookError> {
    let file = path.display().to_string();
    let mut rd = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_path(path)
        .map_err(|e| BookError::Read { file: file.clone(), message: e.to_string() })?;
    let headers = rd.headers().map_err(|e| BookError::Read { file: file.clone(), message: e.to_string() })?.clone();
    let col: HashMap<String, usize> = headers.iter().enumerate().map(|(i, h)| (h.to_owned(), i)).collect();
    let mut book = Book::default();
    for rec in rd.records() {
        let rec = rec.map_err(|e| BookError::Read { file: file.clone(), message: e.to_string() })?;
        let line = rec.position().map_or(0, csv::Position::line);
        let cell = |name: &str| col.get(name).and_then(|i| rec.get(*i)).unwrap_or("");
        let bad = |column: &str, message: String| BookError::Cell {
            file: file.clone(),
            line,
            column: column.to_owned(),
            message,
        };
        let num = |name: &str| -> Result<f64, BookError> {
            let t = cell(name);
            t.parse::<f64>().map_err(|_| bad(name, format!("expected a number, got {t:?}")))
        };
        let opt_num = |name: &str, default: f64| -> Result<f64, BookError> {
            if cell(name).is_empty() {
                Ok(default)
            } else {
                num(name)
            }
        };
        let id = cell("id").to_owned();
        let call = match cell("type") {
            "call" => true,
            "put" => false,
            t => return Err(bad("type", format!("expected call or put, got {t:?}"))),
        };
        let fixings = || -> Result<Option<u32>, BookError> {
            let t = cell("fixings");
            if t.is_empty() {
                Ok(None)
            } else {
                t.parse::<u32>()
                    .ok()
                    .filter(|n| *n > 0)
                    .map(Some)
                    .ok_or_else(|| bad("fixings", format!("expected a positive integer, got {t:?}")))
            }
        };
        let product = match cell("kind") {
            "european" => Product::European,
            "asian_arith" | "asian_geo" => {
                let n = fixings()?.ok_or_else(|| bad("fixings", "an Asian needs fixings".into()))?;
                if cell("kind") == "asian_arith" {
                    Product::AsianArith(n)
                } else {
                    Product::AsianGeo(n)
                }
            }
            "barrier" => {
                let kind = match cell("barrier_type") {
                    "down_out" => 0,
                    "down_in" => 1,
                    "up_out" => 2,
                    "up_in" => 3,
                    t => return Err(bad("barrier_type", format!("unknown barrier type {t:?}"))),
                };
                Product::Barrier {
                    barrier: num("barrier")?,
                    kind,
                    rebate: opt_num("rebate", 0.0)?,
                    fixings: fixings()?,
                }
            }
            k @ ("american" | "heston") => {
                book.skipped.push((id, format!("kind {k} has no fused Monte Carlo kernel")));
                continue;
            }
            k => return Err(bad("kind", format!("unknown kind {k:?}"))),
        };
        let c = Contract {
            product,
            call,
            spot: num("spot")?,
            strike: num("strike")?,
            maturity: num("maturity")?,
            rate: num("rate")?,
            dividend: opt_num("dividend", 0.0)?,
            vol: num("vol")?,
        };
        if !(c.spot > 0.0 && c.strike > 0.0 && c.maturity > 0.0 && c.vol > 0.0) {
            return Err(bad("spot/strike/maturity/vol", "must be positive".into()));
        }
        book.trades.push((id, c));
    }
    Ok(book)
}
