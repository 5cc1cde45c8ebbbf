//! Shared domain types: option contracts and results.
//!
//! Units follow `shared/spec/portfolio-csv.md`: prices in currency units, maturity in years
//! (ACT/365F), rates and dividend yields continuously compounded per year, volatility per
//! square-root year.

use crate::error::{require_finite, require_non_negative, require_positive, PricingError};

/// Call or put.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OptionType {
    /// Pays `max(S - K, 0)`.
    Call,
    /// Pays `max(K - S, 0)`.
    Put,
}

impl OptionType {
    /// +1 for a call, -1 for a put.
    pub fn sign(self) -> f64 {
        match self {
            Self::Call => 1.0,
            Self::Put => -1.0,
        }
    }
    /// Intrinsic value `max(w (s - k), 0)`.
    pub fn payoff(self, s: f64, k: f64) -> f64 {
        (self.sign() * (s - k)).max(0.0)
    }
}

/// Barrier direction and effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BarrierType {
    /// Knocked out when the spot falls to the barrier.
    DownOut,
    /// Knocked in when the spot falls to the barrier.
    DownIn,
    /// Knocked out when the spot rises to the barrier.
    UpOut,
    /// Knocked in when the spot rises to the barrier.
    UpIn,
}

impl BarrierType {
    /// Kernel code (`payoff_barrier`, `mc_barrier`): 0 down_out, 1 down_in, 2 up_out, 3 up_in.
    pub fn code(self) -> u32 {
        match self {
            Self::DownOut => 0,
            Self::DownIn => 1,
            Self::UpOut => 2,
            Self::UpIn => 3,
        }
    }
    /// Whether the barrier is below the spot.
    pub fn is_down(self) -> bool {
        matches!(self, Self::DownOut | Self::DownIn)
    }
    /// Whether the option is knocked out (rather than in).
    pub fn is_out(self) -> bool {
        matches!(self, Self::DownOut | Self::UpOut)
    }
    /// Whether `spot` is on or beyond `barrier` (the barrier already hit).
    pub fn breached(self, spot: f64, barrier: f64) -> bool {
        if self.is_down() {
            spot <= barrier
        } else {
            spot >= barrier
        }
    }
}

/// A European option under Black-Scholes-Merton with continuous dividend yield.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vanilla {
    /// Call or put.
    pub option: OptionType,
    /// Spot price today.
    pub spot: f64,
    /// Strike.
    pub strike: f64,
    /// Time to expiry in years.
    pub maturity: f64,
    /// Continuously compounded risk-free rate.
    pub rate: f64,
    /// Continuously compounded dividend (carry) yield.
    pub dividend: f64,
    /// Black-Scholes volatility.
    pub vol: f64,
}

impl Vanilla {
    /// Checks the domain of every field: spot and strike finite and > 0, maturity and vol
    /// finite and >= 0, rate and dividend finite (negative allowed). The error names the first
    /// offending field (`spot`, `strike`, `maturity`, `rate`, `dividend`, `vol`).
    pub fn validate(&self) -> Result<(), PricingError> {
        require_positive("spot", self.spot)?;
        require_positive("strike", self.strike)?;
        require_non_negative("maturity", self.maturity)?;
        require_finite("rate", self.rate)?;
        require_finite("dividend", self.dividend)?;
        require_non_negative("vol", self.vol)
    }

    /// The forward `spot * exp((rate - dividend) * maturity)`.
    pub fn forward(&self) -> f64 {
        self.spot * ((self.rate - self.dividend) * self.maturity).exp()
    }
}

/// A single barrier option, continuously monitored, on a [`Vanilla`] underlying contract
/// (Reiner & Rubinstein 1991; Haug 2007, section 4.17.1).
///
/// Rebate convention (Haug's, `shared/spec/portfolio-csv.md`): a knock-out pays `rebate` at
/// the moment the barrier is hit; a knock-in pays `rebate` at expiry if never knocked in. A
/// spot already on or beyond the barrier is not an error: a knock-out is then worth its rebate
/// paid now, a knock-in the vanilla option.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BarrierSpec {
    /// The option that is knocked in or out.
    pub vanilla: Vanilla,
    /// Barrier level, currency units, finite and > 0.
    pub barrier: f64,
    /// Direction and effect.
    pub barrier_type: BarrierType,
    /// Cash rebate, currency units, finite and >= 0 (0 for none).
    pub rebate: f64,
}

impl BarrierSpec {
    /// Validates the vanilla fields ([`Vanilla::validate`]), then `barrier` (finite, > 0) and
    /// `rebate` (finite, >= 0).
    pub fn validate(&self) -> Result<(), PricingError> {
        self.vanilla.validate()?;
        require_positive("barrier", self.barrier)?;
        require_non_negative("rebate", self.rebate)
    }
}

/// Price and sensitivities. Vega per 1.00 of vol, rho per 1.00 of rate, theta per year of
/// calendar time passing (dV/dt = -dV/dT), as the portfolio spec asks.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Greeks {
    /// Present value.
    pub price: f64,
    /// dV/dS.
    pub delta: f64,
    /// d2V/dS2.
    pub gamma: f64,
    /// dV/dsigma.
    pub vega: f64,
    /// dV/dt.
    pub theta: f64,
    /// dV/dr.
    pub rho: f64,
}
