//! Backtests for every door: the settings checked once (starting cash, costs, the annualisation
//! and the cash policy, refused with the setting's name), and a run or a parameter sweep written
//! as a folder of results ([`run_to_folder`]: `tenor backtest`).

mod outputs;
mod run;

pub use run::{run_to_folder, BacktestRequest, MAX_SWEEP_RUNS};

use tenor_backtest::{CashPolicy, CostModel, EngineConfig};

/// Largest `--cash`: 1e15, so that equity, notional and their sums over any run stay far from
/// overflow.
pub const MAX_CASH: f64 = 1e15;

/// A setting refused before anything runs, naming the setting (`cash`, spelled by the door:
/// [`crate::words::setting`]) and the value.
#[derive(Debug, thiserror::Error)]
#[error("{} {value}: {reason}", crate::words::setting(flag))]
pub struct ArgError {
    /// The setting, e.g. `cash`.
    pub flag: &'static str,
    /// The value given, as written.
    pub value: String,
    /// What a valid value is.
    pub reason: String,
}

/// An [`ArgError`] for setting `flag` and `value`.
pub fn refuse(flag: &'static str, value: impl ToString, reason: &str) -> ArgError {
    ArgError { flag, value: value.to_string(), reason: reason.into() }
}

/// The settings of [`engine_config`], as the flags of `tenor backtest` give them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// `--cash`: starting cash.
    pub cash: f64,
    /// `--per-share`: commission per share.
    pub per_share: f64,
    /// `--commission-bps`: commission in basis points of notional.
    pub commission_bps: f64,
    /// `--min-commission`: minimum commission per fill.
    pub min_commission: f64,
    /// `--slippage-bps`: slippage on market and stop fills, basis points.
    pub slippage_bps: f64,
    /// `--periods-per-year`: bars per year for annualising.
    pub periods_per_year: f64,
    /// `--insufficient-cash`: buys the cash does not cover.
    pub cash_policy: CashPolicy,
}

/// The engine settings of a backtest, checked: cash in (0, 1e15], periods per year finite and
/// positive, costs finite, not negative and bounded: `--commission-bps` at most 10000 (all of
/// the notional), `--slippage-bps` below 10000 (a sale at a price of 0 or less), `--per-share`
/// and `--min-commission` at most `--cash`.
///
/// # Errors
/// The first setting out of range.
pub fn engine_config(s: &Settings) -> Result<EngineConfig, ArgError> {
    if !(s.cash.is_finite() && s.cash > 0.0 && s.cash <= MAX_CASH) {
        return Err(refuse("cash", s.cash, "must be finite, > 0 and at most 1e15"));
    }
    if !(s.periods_per_year.is_finite() && s.periods_per_year > 0.0) {
        return Err(refuse("periods_per_year", s.periods_per_year, "must be finite and > 0"));
    }
    for (flag, v) in [
        ("per_share", s.per_share),
        ("commission_bps", s.commission_bps),
        ("min_commission", s.min_commission),
        ("slippage_bps", s.slippage_bps),
    ] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(refuse(flag, v, "must be finite and >= 0"));
        }
    }
    if s.commission_bps > 10_000.0 {
        return Err(refuse("commission_bps", s.commission_bps, "must be at most 10000 (100 % of the notional)"));
    }
    if s.slippage_bps >= 10_000.0 {
        return Err(refuse("slippage_bps", s.slippage_bps, "must be below 10000 (a sale would fill at a price <= 0)"));
    }
    for (flag, v) in [("per_share", s.per_share), ("min_commission", s.min_commission)] {
        if v > s.cash {
            return Err(refuse(flag, v, "must be at most the starting cash"));
        }
    }
    let costs = CostModel {
        per_share: s.per_share,
        bps: s.commission_bps,
        minimum: s.min_commission,
        slippage_bps: s.slippage_bps,
    };
    Ok(EngineConfig { cash: s.cash, costs, periods_per_year: s.periods_per_year, cash_policy: s.cash_policy })
}
