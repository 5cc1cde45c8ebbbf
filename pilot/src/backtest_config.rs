//! The settings of a backtest checked once for every front end (`tenor backtest` and the Python
//! package): starting cash, costs and the annualisation, refused with the flag's name.

use tenor_backtest::{CostModel, EngineConfig};

/// A setting refused before anything runs, naming the flag (`--cash`; the Python package
/// reports the keyword without the dashes) and the value.
#[derive(Debug, thiserror::Error)]
#[error("{flag} {value}: {reason}")]
pub struct ArgError {
    /// The flag, e.g. `--cash`.
    pub flag: &'static str,
    /// The value given, as written.
    pub value: String,
    /// What a valid value is.
    pub reason: String,
}

/// An [`ArgError`] for `flag` and `value`.
pub fn refuse(flag: &'static str, value: impl ToString, reason: &str) -> ArgError {
    ArgError { flag, value: value.to_string(), reason: reason.into() }
}

/// The engine settings of a backtest, checked: cash finite and positive, periods per year
/// finite and positive, commission per share, commission in basis points, minimum commission
/// and slippage in basis points finite and not negative.
///
/// # Errors
/// The first setting out of range.
pub fn engine_config(
    cash: f64,
    per_share: f64,
    commission_bps: f64,
    min_commission: f64,
    slippage_bps: f64,
    periods_per_year: f64,
) -> Result<EngineConfig, ArgError> {
    if !(cash.is_finite() && cash > 0.0) {
        return Err(refuse("--cash", cash, "must be finite and > 0"));
    }
    if !(periods_per_year.is_finite() && periods_per_year > 0.0) {
        return Err(refuse("--periods-per-year", periods_per_year, "must be finite and > 0"));
    }
    for (flag, v) in [
        ("--per-share", per_share),
        ("--commission-bps", commission_bps),
        ("--min-commission", min_commission),
        ("--slippage-bps", slippage_bps),
    ] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(refuse(flag, v, "must be finite and >= 0"));
        }
    }
    let costs = CostModel { per_share, bps: commission_bps, minimum: min_commission, slippage_bps };
    Ok(EngineConfig { cash, costs, periods_per_year })
}
