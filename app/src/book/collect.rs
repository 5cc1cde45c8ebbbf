//! Pricing a parsed portfolio the way `tenor price` does, as a library function that the command
//! line, the Python package (`bindings/python`) and any other front end call: one copy of the
//! checks, the routing of failures to file and line, and the order of the rows.

use std::path::Path;

use tenor_ports::{Compute, Devices};
use tenor_pricing::portfolio::{self, BookConfig, BookRun, BookTimes, Kind, ParsedPortfolio, PricedRow, RowError};

pub use tenor_pricing::portfolio::SettingError;

/// A trade that was read but could not be priced.
#[derive(Debug, Clone, PartialEq)]
pub struct TradeFailure {
    /// 1-based line of the trade in its file.
    pub line: u64,
    /// The trade's id.
    pub id: String,
    /// The trade's kind.
    pub kind: Kind,
    /// The message of `tenor price`: `FILE:LINE: trade "ID" (KIND): REASON`.
    pub message: String,
}

/// The outcome of [`price_parsed`]: the priced rows in input order and every problem.
#[derive(Debug, Clone)]
pub struct PricedBook {
    /// Priced rows, in input order (rows that failed are left out).
    pub rows: Vec<PricedRow>,
    /// The kind of each row of `rows` (same length).
    pub kinds: Vec<Kind>,
    /// The file's line of each row of `rows` (same length).
    pub lines: Vec<u64>,
    /// Problems of the header and rows found when reading (file, line, column).
    pub read_errors: Vec<RowError>,
    /// Trades read but refused by the pricer.
    pub trade_failures: Vec<TradeFailure>,
    /// Every rejected line, sorted, without repeats.
    pub bad_lines: Vec<u64>,
    /// Where the rows ran (host closed forms, backend Monte Carlo) and how long each took.
    pub times: BookTimes,
}

impl PricedBook {
    /// Every problem as the command line prints it (after `error: `), read errors first.
    pub fn messages(&self) -> Vec<String> {
        self.read_errors
            .iter()
            .map(ToString::to_string)
            .chain(self.trade_failures.iter().map(|f| f.message.clone()))
            .collect()
    }
}

/// Prices the trades of `parsed` (read from `file`) on `compute` with `config` and the run
/// settings `run` (batching), reporting progress as [`portfolio::price_book_with`] does. Rows that fail are named with file and line
/// (`tenor price`'s messages); the others are priced as usual.
pub fn price_parsed(
    compute: &dyn Compute,
    parsed: &ParsedPortfolio,
    file: &Path,
    config: &BookConfig,
    run: &BookRun,
    progress: &mut dyn FnMut(usize),
) -> PricedBook {
    let (results, times) = portfolio::price_book_timed(compute, &parsed.trades, config, run, progress);
    collect(parsed, file, results, times)
}

/// [`price_parsed`] over every device of `devices`: the book split by cost, each shard priced
/// on its device, rows in input order, bitwise those of one device
/// ([`portfolio::price_book_sharded`]); also returns the split. The times are the slowest
/// device's (rows summed over the devices).
pub fn price_parsed_sharded(
    devices: &Devices,
    parsed: &ParsedPortfolio,
    file: &Path,
    config: &BookConfig,
    run: &BookRun,
    progress: &(dyn Fn(usize) + Sync),
) -> (PricedBook, portfolio::BookSharding) {
    let (results, split, times) = portfolio::price_book_sharded(devices, &parsed.trades, config, run, progress);
    (collect(parsed, file, results, times), split)
}

/// Sorts the pricer's results into rows and failures named with file and line.
fn collect(
    parsed: &ParsedPortfolio,
    file: &Path,
    results: Vec<Result<PricedRow, portfolio::PriceError>>,
    times: BookTimes,
) -> PricedBook {
    let mut book = PricedBook {
        rows: Vec::with_capacity(results.len()),
        kinds: Vec::with_capacity(results.len()),
        lines: Vec::with_capacity(results.len()),
        read_errors: parsed.errors.clone(),
        trade_failures: Vec::new(),
        bad_lines: parsed.bad_lines(),
        times,
    };
    for (trade, r) in parsed.trades.iter().zip(results) {
        match r {
            Ok(row) => {
                book.rows.push(row);
                book.kinds.push(trade.kind());
                book.lines.push(trade.line);
            }
            Err(e) => {
                book.trade_failures.push(TradeFailure {
                    line: trade.line,
                    id: trade.id.clone(),
                    kind: trade.kind(),
                    message: format!("{}: {e}", super::chunks::trade_label(file, trade)),
                });
                book.bad_lines.push(trade.line);
            }
        }
    }
    book.bad_lines.sort_unstable();
    book.bad_lines.dedup();
    book
}
