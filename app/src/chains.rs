//! Reading an option chain in any layout Tenor knows, for `tenor surface`, `tenor calibrate`
//! and the Python package: a folder of Cboe quote-data files, one Cboe file, or a Yahoo chain
//! CSV (which carries no snapshot date, so it needs one).

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use tenor_market::quotes::Chain;

/// Why a chain could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ChainError {
    /// The file could not be read or is not UTF-8 (path, and line and column for bad bytes).
    #[error(transparent)]
    Read(#[from] tenor_ports::text::TextError),
    /// A Yahoo chain without the snapshot date.
    #[error("{}: a Yahoo chain needs {} YYYY-MM-DD", path.display(), crate::words::setting("as_of"))]
    NeedsAsOf {
        /// The file.
        path: PathBuf,
    },
    /// A malformed file (file, line and column in the message).
    #[error(transparent)]
    Market(#[from] tenor_market::MarketError),
}

/// Reads the chain at `path`: a folder of Cboe files, a Cboe file, or a Yahoo CSV (recognised
/// by its `contractSymbol` header) dated `as_of`.
///
/// # Errors
/// [`ChainError`] naming the file (and line and column for a malformed one).
pub fn load_chain(path: &Path, as_of: Option<NaiveDate>) -> Result<Chain, ChainError> {
    if path.is_dir() {
        return Ok(tenor_market::cboe::load_cboe_dir(path)?);
    }
    let head = tenor_ports::text::read_text(path)?;
    if head.lines().next().is_some_and(|l| l.starts_with("contractSymbol")) {
        let Some(d) = as_of else { return Err(ChainError::NeedsAsOf { path: path.to_owned() }) };
        return Ok(tenor_market::yahoo::parse_yahoo(&head, &path.display().to_string(), d)?);
    }
    Ok(tenor_market::cboe::parse_cboe(&head, &path.display().to_string())?)
}
