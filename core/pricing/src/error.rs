//! Typed errors of the pricing layer.

use thiserror::Error;

/// Why a price could not be computed.
///
/// Every variant names the offending parameter (as spelled in `shared/spec/portfolio-csv.md`:
/// `spot`, `strike`, `maturity`, `rate`, `dividend`, `vol`, `barrier`, `rebate`) and its value,
/// so the portfolio layer can add the file, line and column.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PricingError {
    /// A parameter is outside the domain of the model (negative vol, strike <= 0, NaN, ...).
    #[error("invalid {name} = {value}: {reason}")]
    InvalidParameter {
        /// The parameter's name, e.g. `"vol"`.
        name: &'static str,
        /// The value received.
        value: f64,
        /// What the value must satisfy.
        reason: String,
    },
}

impl PricingError {
    /// Shorthand for [`PricingError::InvalidParameter`].
    pub fn invalid(name: &'static str, value: f64, reason: impl Into<String>) -> Self {
        Self::InvalidParameter { name, value, reason: reason.into() }
    }

    /// The name of the parameter the error is about.
    pub fn parameter(&self) -> &'static str {
        match self {
            Self::InvalidParameter { name, .. } => name,
        }
    }
}

/// `Ok(())` when `value` is finite and strictly positive, else [`PricingError::InvalidParameter`].
pub fn require_positive(name: &'static str, value: f64) -> Result<(), PricingError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(PricingError::invalid(name, value, "must be finite and > 0"))
    }
}

/// `Ok(())` when `value` is finite and `>= 0`, else [`PricingError::InvalidParameter`].
pub fn require_non_negative(name: &'static str, value: f64) -> Result<(), PricingError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(PricingError::invalid(name, value, "must be finite and >= 0"))
    }
}

/// `Ok(())` when `value` is finite (any sign), else [`PricingError::InvalidParameter`].
pub fn require_finite(name: &'static str, value: f64) -> Result<(), PricingError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(PricingError::invalid(name, value, "must be finite"))
    }
}
