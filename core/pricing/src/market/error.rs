//! Typed errors of the market-data readers.

use std::path::PathBuf;

use thiserror::Error;

/// Why a market-data file could not be used.
#[derive(Debug, Error)]
pub enum MarketError {
    /// The file could not be opened or read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file's content is not in the expected layout.
    #[error("{}:{line}: {message}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// What was expected and found.
        message: String,
    },
    /// The data cannot answer the question asked (no curve on or before a date, no quotes to
    /// imply a dividend from).
    #[error("{0}")]
    Insufficient(String),
}
