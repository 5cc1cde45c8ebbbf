//! American options under Black-Scholes-Merton (flat rate, dividend yield and volatility).
//!
//! * [`fd`]: the reference engine, Crank-Nicolson in log-spot with Rannacher start-up and the
//!   linear complementarity problem of early exercise solved exactly at every time step by
//!   policy iteration; the European value on the same grid is used as a control variate.
//! * [`lsm`]: Longstaff-Schwartz Monte Carlo on the `Compute` port (paths, the regression's
//!   normal equations and the exercise rule as batch kernels over many products, one host
//!   solve per product and exercise date; the book's `--engine mc` American rows).
//!
//! The European control variate is the closed form of [`crate::analytic::black_scholes`] (one
//! copy; this module's own, on `statrs`' `erfc`, was off by 2e-9 at strike 130).
//!
//! Both engines price a call as the put of the put-call symmetry of American options
//! ([`symmetric`]), the finite differences for every call, Longstaff-Schwartz for every call it
//! simulates (its payoff is then bounded by the call's spot, so the regression is well
//! conditioned).

pub mod fd;
pub mod lsm;

pub use fd::{
    american_fd, american_fd_greeks, american_fd_richardson, american_fd_with, perpetual_put, FdGrid, FdResult,
};
pub use lsm::{
    group_size, lsm_as_symmetric_put, lsm_price, lsm_price_batch, product_bytes, LsmConfig, LsmResult, LSM_BATCH_BYTES,
    LSM_CHUNK, LSM_PIVOT_TOLERANCE,
};

use thiserror::Error;

/// Errors of the American engines.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum AmericanError {
    /// A contract or model parameter is out of its domain (`name` = the parameter).
    #[error("invalid parameter {name} = {}: {reason}", crate::error::Shown(*.value))]
    InvalidParameter {
        /// Parameter name (`spot`, `strike`, `maturity`, `vol`, `rate`, `dividend`, grid sizes).
        name: &'static str,
        /// The offending value.
        value: f64,
        /// What the domain is.
        reason: &'static str,
    },
    /// The early-exercise policy iteration did not settle (never seen on an M-matrix; kept so
    /// a pathological grid reports instead of looping).
    #[error("policy iteration did not converge at time step {step} after {iterations} iterations")]
    NoConvergence {
        /// Time step (counted from expiry).
        step: usize,
        /// Iterations done.
        iterations: usize,
    },
    /// The regression's normal equations are singular: not even a constant fit of
    /// the in-the-money paths' continuation values can be factorised.
    #[error("LSM regression at exercise date {step} is singular ({itm} in-the-money paths)")]
    SingularRegression {
        /// Exercise date index.
        step: usize,
        /// In-the-money paths at that date.
        itm: usize,
    },
    /// The engine returned no result for a product (a bug in the pricer, reported, not hidden).
    #[error("internal error: the Longstaff-Schwartz batch produced no result for this product")]
    NoResult,
    /// An error from the compute backend.
    #[error("compute backend: {0}")]
    Compute(#[from] tenor_ports::ComputeError),
    /// An error of the European closed form (the control variate; never seen for a contract
    /// [`validate`] accepts, kept so one would report instead of panicking).
    #[error(transparent)]
    Pricing(#[from] crate::error::PricingError),
}

/// Checks a contract's parameters: spot and strike positive and finite, maturity and vol
/// non-negative and finite, rate and dividend finite.
///
/// # Errors
/// [`AmericanError::InvalidParameter`] naming the first bad field.
pub fn validate(v: &crate::types::Vanilla) -> Result<(), AmericanError> {
    let pos = |name, value: f64| {
        if value.is_finite() && value > 0.0 {
            Ok(())
        } else {
            Err(AmericanError::InvalidParameter { name, value, reason: "must be finite and > 0" })
        }
    };
    let nonneg = |name, value: f64| {
        if value.is_finite() && value >= 0.0 {
            Ok(())
        } else {
            Err(AmericanError::InvalidParameter { name, value, reason: "must be finite and >= 0" })
        }
    };
    let finite = |name, value: f64| {
        if value.is_finite() {
            Ok(())
        } else {
            Err(AmericanError::InvalidParameter { name, value, reason: "must be finite" })
        }
    };
    pos("spot", v.spot)?;
    pos("strike", v.strike)?;
    nonneg("maturity", v.maturity)?;
    nonneg("vol", v.vol)?;
    finite("rate", v.rate)?;
    finite("dividend", v.dividend)
}

/// Whether early exercise is never optimal, so that the American option is worth exactly the
/// European: a call with no dividend yield (`dividend <= 0`) and `rate >= 0` (Merton 1973,
/// "Theory of rational option pricing", Bell J. Econ. 4, theorem 1: the European call is worth
/// at least `S e^{-qT} - K e^{-rT} >= S - K`, so the call is worth more alive than exercised),
/// and by the same bound a put with `rate <= 0` and `dividend >= 0`.
#[must_use]
pub fn no_early_exercise(v: &crate::types::Vanilla) -> bool {
    match v.option {
        crate::types::OptionType::Call => v.dividend <= 0.0 && v.rate >= 0.0,
        crate::types::OptionType::Put => v.rate <= 0.0 && v.dividend >= 0.0,
    }
}

/// The option of the put-call symmetry of American options (McDonald and Schroder 1998, "A
/// parity result for American options", J. Computational Finance 1(3); Carr and Chesney 1996):
/// under Black-Scholes-Merton with a flat rate `r`, dividend yield `q` and volatility `vol`,
/// `C(S, K, T, r, q, vol) = P(K, S, T, q, r, vol)`, so the call `v` maps to the put with spot
/// `K`, strike `S`, rate `q` and dividend yield `r` (same maturity and vol), and the put to the
/// call the same way: the map is its own inverse. Exact for American (and European) options:
/// with the stock as numeraire, the call exercised at any time `t` pays the put's payoff
/// `(S - Y_t)^+` on `Y_t = S K / S_t`, which starts at `K`, grows at `q - r` and is discounted
/// at `q`. The symmetric option of a valid contract is valid ([`validate`]).
#[must_use]
pub fn symmetric(v: &crate::types::Vanilla) -> crate::types::Vanilla {
    use crate::types::OptionType::{Call, Put};
    crate::types::Vanilla {
        option: match v.option {
            Call => Put,
            Put => Call,
        },
        spot: v.strike,
        strike: v.spot,
        rate: v.dividend,
        dividend: v.rate,
        ..*v
    }
}
