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
    #[error("invalid {name} = {}: {reason}", Shown(*.value))]
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

/// A parameter's value as error messages print it: Rust's shortest round-trip decimal, except
/// that magnitudes of 1e16 and above are written with an exponent (`1e300`, not 301 digits).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shown(pub f64);

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_finite() && self.0.abs() >= 1e16 {
            write!(f, "{:e}", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_values_are_shown_with_an_exponent_and_others_as_before() {
        assert_eq!(PricingError::invalid("v0", 1e300, "too large").to_string(), "invalid v0 = 1e300: too large");
        assert_eq!(PricingError::invalid("vol", -0.25, "must be > 0").to_string(), "invalid vol = -0.25: must be > 0");
        assert_eq!(Shown(f64::INFINITY).to_string(), "inf");
        assert_eq!(Shown(123456.5).to_string(), "123456.5");
    }
}
