//! Errors of the basket job: where the job file is wrong (line and column of a syntax error,
//! the key of a bad value), what is over a work limit, and the backend's errors.

use tenor_ports::ComputeError;
use thiserror::Error;

/// Errors of [`super::BasketJob`] parsing and validation and of [`super::price_basket`].
#[derive(Debug, Clone, PartialEq, Error)]
pub enum BasketError {
    /// The file is not valid TOML.
    #[error("line {line}, column {column}: {message}")]
    Syntax {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column (characters) of the error.
        column: usize,
        /// The TOML parser's message.
        message: String,
    },
    /// A key is missing, of the wrong type, out of its domain, or unknown.
    #[error("{key}: {reason}")]
    Invalid {
        /// The key as written in the file, with indices: `asset[2].kappa`,
        /// `correlation.prices[2][3]`, `option.weights`.
        key: String,
        /// What is wrong and what is allowed.
        reason: String,
    },
    /// The job asks for more work or memory than the engine takes.
    #[error("{key}: {reason}")]
    WorkLimit {
        /// The key (or command-line flag's key) that sets the size.
        key: String,
        /// The size, the limit, and what helps.
        reason: String,
    },
    /// The backend failed (allocation, launch, transfer).
    #[error(transparent)]
    Compute(#[from] ComputeError),
}

impl BasketError {
    /// An [`BasketError::Invalid`] for `key`.
    pub(crate) fn invalid(key: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::Invalid { key: key.into(), reason: reason.into() }
    }
}
