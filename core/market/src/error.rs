//! Typed errors of the market-data layer.

use std::path::PathBuf;

use tenor_ports::ComputeError;

/// Everything that can go wrong loading market data, building curves and surfaces.
#[derive(Debug, thiserror::Error)]
pub enum MarketError {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A file that is not UTF-8: the line, column and byte offset of the first bad byte.
    #[error(transparent)]
    NotUtf8(#[from] tenor_ports::text::NotUtf8),
    /// A problem with a file or folder as a whole (a folder with no data file in it).
    #[error("{path}: {message}")]
    Source {
        /// The file or folder.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A malformed line (wrong number of fields, a missing header, an unparsable layout).
    #[error("{file}, line {line}: {message}")]
    Row {
        /// The file.
        file: String,
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// A malformed field.
    #[error("{file}, line {line}, column {column} ({name}): {message}")]
    Cell {
        /// The file.
        file: String,
        /// 1-based line number.
        line: u64,
        /// 1-based column number.
        column: usize,
        /// The column's name.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// The data cannot answer the question asked (no curve on or before a date, no quotes near
    /// the money to imply a dividend from, an expiry missing from the chain).
    #[error("{0}")]
    Insufficient(String),
    /// A curve could not be built or queried (too few or inconsistent points).
    #[error("curve: {0}")]
    Curve(String),
    /// Put-call parity gave no forward for an expiry.
    #[error("parity forward for expiry {expiry}: {message}")]
    Parity {
        /// The expiry.
        expiry: String,
        /// What is wrong.
        message: String,
    },
    /// An SVI fit failed.
    #[error("SVI fit for expiry {expiry}: {message}")]
    Fit {
        /// The expiry.
        expiry: String,
        /// What is wrong.
        message: String,
    },
    /// An invalid argument to a function of this crate.
    #[error("invalid argument {name}: {message}")]
    InvalidArgument {
        /// The parameter.
        name: &'static str,
        /// What is wrong.
        message: String,
    },
    /// A plot could not be drawn or written.
    #[error("plot {path}: {message}")]
    Plot {
        /// The output file.
        path: PathBuf,
        /// The drawing backend's message.
        message: String,
    },
    /// An error of the compute backend.
    #[error(transparent)]
    Compute(#[from] ComputeError),
}

/// Result alias of this crate.
pub type Result<T, E = MarketError> = std::result::Result<T, E>;

/// Reads a whole file through the one text reader (tenor_ports::text): naming it in the error,
/// and the line, column and byte of a byte that is not UTF-8.
pub(crate) fn read_file(path: &std::path::Path) -> Result<String> {
    tenor_ports::text::read_text(path).map_err(|e| match e {
        tenor_ports::text::TextError::Io { path, source } => MarketError::Io { path, source },
        tenor_ports::text::TextError::NotUtf8(n) => MarketError::NotUtf8(n),
    })
}
