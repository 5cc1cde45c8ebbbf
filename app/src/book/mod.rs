//! Pricing a book (a portfolio CSV) as a request and an outcome: [`BookRequest`] in,
//! [`price_book`] (or its parts [`run_book`], [`BookRun::write_rows`] and [`Summary`]) out.
//! The command line and `tenor serve` run the same code; the Python package and the C ABI
//! call [`collect::price_parsed`] on rows they read or built themselves; the Dask door prices a
//! book in chunks on other processes ([`chunks`]).

pub mod chunks;
pub mod collect;
pub mod open;
mod request;
mod run;
mod summary;

pub use collect::{price_parsed, price_parsed_sharded, PricedBook, TradeFailure};
pub use request::{BookRequest, EngineChoice};
pub use run::{price_book, run_book, BookRun, OutFile, Outcome, Resident, Source, Streams, Written};
pub use summary::Summary;

use std::path::Path;

/// Opens the rows' file `out` before any work: refused when it names the `portfolio` or one of
/// `also` ((setting, path): files the call must not replace), then created as a temporary file
/// beside it, so an unwritable output fails now and not after hours of pricing; it replaces the
/// old file only when committed.
///
/// # Errors
/// `out` names an input ([`crate::paths::SameFile`]), or cannot be created.
pub fn open_out(
    out: &Path,
    portfolio: &Path,
    also: &[(&str, &Path)],
) -> anyhow::Result<tenor_ports::files::AtomicFile> {
    let inputs: Vec<(&str, &Path)> = std::iter::once(("portfolio", portfolio)).chain(also.iter().copied()).collect();
    crate::paths::refuse_overwrite(&inputs, &[("out", out)])?;
    Ok(tenor_ports::files::AtomicFile::create(out)?)
}
