//! Errors of the Monte Carlo engines.
use thiserror::Error;

use crate::analytic::asian::AsianError;

/// What went wrong while pricing by Monte Carlo.
#[derive(Debug, Clone, Error)]
pub enum McError {
    /// A contract or configuration parameter outside its domain.
    #[error("invalid {parameter} = {}: {reason}", crate::error::Shown(*.value))]
    InvalidParameter {
        /// Parameter name (`spot`, `vol`, `paths`, ...).
        parameter: &'static str,
        /// The value given.
        value: f64,
        /// What the domain is.
        reason: &'static str,
    },
    /// A combination the engines do not implement.
    #[error("not supported: {0}")]
    Unsupported(String),
    /// The device failed (launch, copy, asynchronous error).
    #[error("compute: {0}")]
    Compute(#[from] tenor_ports::ComputeError),
    /// The control variate's closed form refused its inputs.
    #[error("closed form: {0}")]
    Analytic(#[from] AsianError),
    /// The barrier closed form a parity identity needs refused its inputs.
    #[error("closed form: {0}")]
    Pricing(#[from] crate::error::PricingError),
    /// The device returned partial sums of the wrong size or non-finite values.
    #[error("bad device result: {0}")]
    BadResult(String),
}

impl McError {
    /// An [`McError::InvalidParameter`].
    pub fn invalid(parameter: &'static str, value: f64, reason: &'static str) -> Self {
        Self::InvalidParameter { parameter, value, reason }
    }
}
