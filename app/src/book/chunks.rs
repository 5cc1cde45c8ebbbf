//! A book priced in chunks by other processes or machines (the Dask door, `tenor.distributed`
//! in the Python package; docs/distributed.md).
//!
//! The client reads and checks the whole file once, so duplicate ids, header problems and line
//! numbers are the whole file's, and plans chunks by estimated cost ([`plan`]: the split of
//! `tenor price --backend cuda:*`, [`portfolio::shard_book`], longest processing time first).
//! A chunk travels as portfolio CSV text with every column and shortest round-trip numbers, so
//! its trades read back bitwise ([`Trade::to_cells`]), with the whole file's line of each trade
//! ([`Chunk`]). A worker prices it with the one-process book pricer ([`price_chunk`]), naming
//! the problems of its trades by the whole file's name and lines; the client puts the rows back
//! in input order by line. Every row's value depends only on the trade and the [`BookConfig`]
//! (one Philox seed, numbers indexed by (seed, path, step), per-block sums added in block
//! order: ADR 0020), so the gathered rows are bitwise those of one process, whatever the
//! chunking and wherever each chunk ran.

use std::path::Path;

use tenor_ports::Compute;
use tenor_pricing::portfolio::{self, BookConfig, BookRun, ParsedPortfolio, PortfolioError, Trade};

use super::collect::{price_parsed, PricedBook};

/// One chunk of a planned book: what a worker needs to price it and what the client needs to
/// name its trades if the chunk is lost.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// Portfolio CSV text of the chunk's trades (header of every column, one row per trade in
    /// input order); it reads back to bitwise the same trades.
    pub text: String,
    /// The whole file's line of each trade of `text`, in row order (ascending).
    pub lines: Vec<u64>,
    /// How each trade is named in messages ([`trade_label`]), in row order.
    pub labels: Vec<String>,
    /// Estimated cost: Monte Carlo path-steps plus host work in Black-Scholes evaluations
    /// ([`portfolio::trade_cost`]).
    pub load: f64,
}

/// A trade as problems name it: `FILE:LINE: trade "ID" (KIND)` (then `: REASON`), the prefix
/// of `tenor price`'s message for a trade the pricer refused.
#[must_use]
pub fn trade_label(file: &Path, trade: &Trade) -> String {
    format!("{}:{}: trade {:?} ({})", file.display(), trade.line, trade.id, trade.kind())
}

/// Splits the trades of `parsed` (read from `file`) into at most `chunks` chunks of about equal
/// estimated cost under `config` (Monte Carlo rows by path-steps, closed-form rows by host
/// work, each class longest processing time first: [`portfolio::shard_book`]); empty chunks
/// are left out (more chunks than trades). `chunks` 0 is taken as 1. Trades keep their input
/// order inside a chunk.
///
/// # Errors
/// [`PortfolioError::Write`] if a chunk's text cannot be formatted (not expected: the writer
/// writes to memory).
pub fn plan(
    parsed: &ParsedPortfolio,
    file: &Path,
    config: &BookConfig,
    chunks: usize,
) -> Result<Vec<Chunk>, PortfolioError> {
    let split = portfolio::shard_book(&parsed.trades, config, chunks.max(1));
    let mut out = Vec::new();
    for (shard, load) in split.sharding.shards.iter().zip(&split.sharding.loads) {
        if shard.is_empty() {
            continue;
        }
        let trades: Vec<Trade> = shard.iter().map(|i| parsed.trades[*i].clone()).collect();
        let mut text = Vec::new();
        portfolio::write_portfolio(&mut text, &trades)?;
        out.push(Chunk {
            text: String::from_utf8(text)
                .map_err(|e| PortfolioError::Write { what: "chunk".into(), message: e.to_string() })?,
            lines: trades.iter().map(|t| t.line).collect(),
            labels: trades.iter().map(|t| trade_label(file, t)).collect(),
            load: *load,
        });
    }
    Ok(out)
}

/// Why a chunk could not be priced at all (its rows are then all lost; each row's own
/// problems are in [`PricedBook::trade_failures`] instead).
#[derive(Debug, thiserror::Error)]
pub enum ChunkError {
    /// The chunk's text is not a portfolio this Tenor reads back whole (written by another
    /// version, or damaged on the way).
    #[error("chunk of {file}: {reason} (was it planned by another version of Tenor?)")]
    Unreadable {
        /// The whole book's file name.
        file: String,
        /// What is wrong.
        reason: String,
    },
}

/// Prices one chunk ([`Chunk::text`] and [`Chunk::lines`]) of the book `file` on `compute` as
/// the one-process pricer prices those trades ([`price_parsed`]): the rows in the chunk's
/// order, the refused trades named by `file` and their whole-file lines.
///
/// # Errors
/// [`ChunkError::Unreadable`] when the text has problems of its own or a different number of
/// trades than `lines` (a chunk planned by [`plan`] has neither).
pub fn price_chunk(
    compute: &dyn Compute,
    text: &[u8],
    lines: &[u64],
    file: &Path,
    config: &BookConfig,
    run: &BookRun,
    progress: &mut dyn FnMut(usize),
) -> Result<PricedBook, ChunkError> {
    let unreadable = |reason: String| ChunkError::Unreadable { file: file.display().to_string(), reason };
    let mut parsed = portfolio::parse_portfolio(text, file).map_err(|e| unreadable(e.to_string()))?;
    if let Some(e) = parsed.errors.first() {
        return Err(unreadable(e.to_string()));
    }
    if parsed.trades.len() != lines.len() {
        return Err(unreadable(format!("{} trades for {} lines", parsed.trades.len(), lines.len())));
    }
    for (t, line) in parsed.trades.iter_mut().zip(lines) {
        t.line = *line;
    }
    Ok(price_parsed(compute, &parsed, file, config, run, progress))
}
