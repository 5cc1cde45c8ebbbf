//! The Heston (1993) stochastic-volatility model:
//! `dS = (r - q) S dt + sqrt(v) S dW1`, `dv = kappa (theta - v) dt + sigma sqrt(v) dW2`,
//! `d<W1, W2> = rho dt`.
//!
//! * [`cf`]: the characteristic function in the "little Heston trap" form (Albrecher, Mayer,
//!   Schoutens & Tistaert 2007) and moment-explosion times (Andersen & Piterbarg 2007).
//! * [`quad`]: adaptive Gauss-Kronrod (7, 15) quadrature (Piessens et al., QUADPACK 1983).
//! * [`analytic`]: the semi-analytic price by Fourier inversion along a shifted contour with
//!   the Lord-Kahl (2007) optimal damping, on a log-transformed domain (no integration cutoff).
//! * [`qe`]: Monte Carlo with Andersen's (2008) quadratic-exponential scheme on the `Compute`
//!   port.
//! * [`moments`]: second moments of the call and put payoffs (what a Monte Carlo estimate's
//!   variance is), infinite for a call past the moment-explosion time of order 2.
//! * [`batch`]: many prices (quotes x parameter sets) in one launch of the `heston_price`
//!   kernel on the `Compute` port, by a fixed-node quadrature ([`tenor_kernels::heston`]).
//! * [`calibrate`]: Levenberg-Marquardt calibration to a list of quotes, every iteration's
//!   pricings batched through [`batch`].

pub mod analytic;
pub mod batch;
pub mod calibrate;
pub mod cf;
pub mod moments;
pub mod qe;
pub mod quad;

pub use analytic::{heston_price, heston_price_with_alpha};
pub use batch::{heston_prices_batch, DEFAULT_NODES};
pub use calibrate::{
    calibrate_heston, calibrate_heston_host, calibrate_heston_observed, calibrate_heston_sharded, CalibrationConfig,
    CalibrationResult, Quote, QuoteFit, Stop,
};
pub use qe::{heston_qe_price, QeConfig, QeResult};

use crate::types::OptionType;
use thiserror::Error;

/// The smallest vol of variance the kernels (`heston_price`, `heston_qe`, `heston_qe_mc`,
/// `heston_qe_batch`) are given: a smaller `sigma` is simulated or priced at this one. They
/// divide terms of order `sigma^2` by `sigma^2`, which underflows to 0 below `sigma` about
/// 1e-154 (every price came out 0, or NaN read as 0). Near `sigma = 0` a price is
/// `BS(w) + O(rho sigma)` with a bounded coefficient (the first-order small vol-of-variance
/// term, Bergomi & Guyon 2012, "Stochastic volatility's orderly smiles", section 2: about the
/// spot times `sigma` at most), so raising a smaller `sigma` to 1e-100 moves a price by about
/// 1e-100 of the spot, far below its rounding. The host pricer [`heston_price`] needs no floor
/// (its characteristic function has a finite limit at `sigma = 0`, [`cf::log_cf`]).
pub const SIGMA_FLOOR: f64 = 1e-100;

/// Heston model parameters (variances per year, `sigma` the volatility of variance).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HestonParams {
    /// Initial variance `v0` (> 0).
    pub v0: f64,
    /// Mean-reversion speed `kappa` (> 0).
    pub kappa: f64,
    /// Long-run variance `theta` (> 0).
    pub theta: f64,
    /// Volatility of variance `sigma` (> 0).
    pub sigma: f64,
    /// Correlation `rho` of spot and variance Brownian motions, in (-1, 1).
    pub rho: f64,
}

/// A European option priced under Heston: contract plus flat rate and dividend yield.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HestonOption {
    /// Call or put.
    pub option: OptionType,
    /// Spot price today.
    pub spot: f64,
    /// Strike.
    pub strike: f64,
    /// Time to expiry in years (> 0).
    pub maturity: f64,
    /// Continuously compounded risk-free rate.
    pub rate: f64,
    /// Continuously compounded dividend yield.
    pub dividend: f64,
}

/// Errors of the Heston pricers and calibration.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum HestonError {
    /// A model or contract parameter is out of its domain.
    #[error("invalid parameter {name} = {}: {reason}", crate::error::Shown(*.value))]
    InvalidParameter {
        /// Parameter name (`v0`, `kappa`, `theta`, `sigma`, `rho`, `spot`, `strike`, ...).
        name: &'static str,
        /// The offending value.
        value: f64,
        /// What the domain is.
        reason: &'static str,
    },
    /// The Fourier integral did not reach its tolerance (`estimate` = error estimate).
    #[error("Fourier integral did not converge: error estimate {estimate:e} after {intervals} intervals")]
    Integration {
        /// Error estimate reached.
        estimate: f64,
        /// Subintervals used.
        intervals: usize,
    },
    /// The characteristic function evaluated to a non-finite number.
    #[error("characteristic function not finite at u = {re} + {im}i")]
    NonFinite {
        /// Real part of the argument.
        re: f64,
        /// Imaginary part of the argument.
        im: f64,
    },
    /// Calibration input problem (quote index and reason).
    #[error("quote {index}: {reason}")]
    BadQuote {
        /// Index in the quote list.
        index: usize,
        /// What is wrong.
        reason: String,
    },
    /// The device returned a non-finite price for valid inputs.
    #[error("heston_price returned {value} for item {index} (set index * quotes + quote index)")]
    DeviceResult {
        /// Work item (set index times the number of quotes plus the quote index).
        index: usize,
        /// The value returned.
        value: f64,
    },
    /// An error from the compute backend.
    #[error("compute backend: {0}")]
    Compute(#[from] tenor_ports::ComputeError),
}

fn check(name: &'static str, value: f64, ok: bool, reason: &'static str) -> Result<(), HestonError> {
    if ok && value.is_finite() {
        Ok(())
    } else {
        Err(HestonError::InvalidParameter { name, value, reason })
    }
}

impl HestonParams {
    /// Checks the domain: `v0, kappa, theta, sigma > 0`, `-1 < rho < 1`.
    ///
    /// # Errors
    /// [`HestonError::InvalidParameter`] naming the first bad parameter.
    pub fn validate(&self) -> Result<(), HestonError> {
        check("v0", self.v0, self.v0 > 0.0, "must be > 0")?;
        check("kappa", self.kappa, self.kappa > 0.0, "must be > 0")?;
        check("theta", self.theta, self.theta > 0.0, "must be > 0")?;
        check("sigma", self.sigma, self.sigma > 0.0, "must be > 0")?;
        check("rho", self.rho, self.rho > -1.0 && self.rho < 1.0, "must be in (-1, 1)")
    }
}

impl HestonOption {
    /// Checks the contract: spot, strike and maturity > 0, rate and dividend finite.
    ///
    /// # Errors
    /// [`HestonError::InvalidParameter`] naming the first bad field.
    pub fn validate(&self) -> Result<(), HestonError> {
        check("spot", self.spot, self.spot > 0.0, "must be > 0")?;
        check("strike", self.strike, self.strike > 0.0, "must be > 0")?;
        check("maturity", self.maturity, self.maturity > 0.0, "must be > 0")?;
        check("rate", self.rate, true, "must be finite")?;
        check("dividend", self.dividend, true, "must be finite")
    }
    /// Forward `S e^{(r - q) T}`.
    pub fn forward(&self) -> f64 {
        self.spot * ((self.rate - self.dividend) * self.maturity).exp()
    }
    /// Discount factor `e^{-r T}`.
    pub fn discount(&self) -> f64 {
        (-self.rate * self.maturity).exp()
    }
}
