//! Example strategies, and their registration table ([`STRATEGIES`]): one row per strategy
//! (name, description, parameters with defaults, whether it prices options, constructor), from
//! which [`build`], [`build_priced`], [`prices_options`], the command line's `--strategy` help
//! ([`help`]), Python's `tenor.strategies()` and the "unknown strategy" error are made. Adding a
//! strategy is its module and one row (ADR 0016).

pub mod buy_and_hold;
pub mod sma_crossover;
pub mod straddle;

use std::collections::BTreeMap;
use std::sync::Arc;

use tenor_ports::Compute;

use crate::batch::Pricer;
use crate::engine::Strategy;

/// Strategy parameters (`--param k=v`).
pub type Params = BTreeMap<String, f64>;

/// A parameter error naming the parameter.
#[derive(Debug, thiserror::Error)]
pub enum ParamError {
    /// Unknown strategy name (the message lists the table's names).
    #[error("unknown strategy {0:?}; known: {known}", known = names().join(", "))]
    UnknownStrategy(String),
    /// A parameter the strategy does not take.
    #[error("strategy {strategy} takes no parameter {name:?} (it takes: {takes})")]
    Unknown {
        /// Strategy.
        strategy: String,
        /// Parameter.
        name: String,
        /// The accepted parameters.
        takes: String,
    },
    /// A value out of range.
    #[error("parameter {name} = {value}: {reason}")]
    Invalid {
        /// Parameter.
        name: String,
        /// Value.
        value: f64,
        /// Why.
        reason: String,
    },
}

/// A parameter that counts something (a window in bars, paths): a positive whole number.
pub(crate) fn whole(name: &str, value: f64) -> Result<usize, ParamError> {
    if value.fract() == 0.0 && (1.0..=1e12).contains(&value) {
        Ok(value as usize)
    } else {
        Err(ParamError::Invalid { name: name.into(), value, reason: "must be a positive whole number".into() })
    }
}

/// The values of `allowed` parameters (name, default) from `params`, in order.
///
/// # Errors
/// [`ParamError::Unknown`] for a parameter not in `allowed`; [`ParamError::Invalid`] for a value
/// that is not finite (NaN, inf).
pub(crate) fn take(params: &Params, strategy: &str, allowed: &[(&str, f64)]) -> Result<Vec<f64>, ParamError> {
    if let Some(k) = params.keys().find(|k| !allowed.iter().any(|(a, _)| a == k)) {
        return Err(ParamError::Unknown {
            strategy: strategy.into(),
            name: k.clone(),
            takes: allowed.iter().map(|(a, d)| format!("{a} (default {d})")).collect::<Vec<_>>().join(", "),
        });
    }
    let values: Vec<f64> = allowed.iter().map(|(a, d)| params.get(*a).copied().unwrap_or(*d)).collect();
    if let Some(((name, _), value)) = allowed.iter().zip(&values).find(|(_, v)| !v.is_finite()) {
        return Err(ParamError::Invalid { name: (*name).into(), value: *value, reason: "must be finite".into() });
    }
    Ok(values)
}

/// Builds a strategy from parameters, option pricing sent to the pricer.
pub type BuildFn = fn(&Params, Pricer) -> Result<Box<dyn Strategy>, ParamError>;

/// One strategy: a row of the registration table.
#[derive(Debug, Clone, Copy)]
pub struct StrategyDef {
    /// Its name (`--strategy`, `tenor.backtest(name, ...)`).
    pub name: &'static str,
    /// One line for help texts.
    pub description: &'static str,
    /// Its parameters (`--param k=v`) with their defaults, in the order it reads them.
    pub params: &'static [(&'static str, f64)],
    /// Whether it prices options (and so takes a [`Pricer`] worth batching in sweeps).
    pub prices_options: bool,
    /// Builds it from parameters, option pricing sent to the pricer.
    pub build: BuildFn,
}

/// Every built-in strategy.
pub static STRATEGIES: &[StrategyDef] = &[
    StrategyDef {
        name: "buy_and_hold",
        description: "buy a fraction of equity in symbol 0 after the first bar and hold",
        params: buy_and_hold::PARAMS,
        prices_options: false,
        build: |p, _| Ok(Box::new(buy_and_hold::BuyAndHold::from_params(p)?)),
    },
    StrategyDef {
        name: "sma_crossover",
        description: "long when the fast moving average of closes is above the slow one, else flat",
        params: sma_crossover::PARAMS,
        prices_options: false,
        build: |p, _| Ok(Box::new(sma_crossover::SmaCrossover::from_params(p)?)),
    },
    StrategyDef {
        name: "short_straddle",
        description: "delta-hedged short at-the-money straddle, rolled, priced by Monte Carlo on the backend",
        params: straddle::PARAMS,
        prices_options: true,
        build: |p, pricer| Ok(Box::new(straddle::ShortStraddle::from_params_priced(p, pricer)?)),
    },
];

/// The row of strategy `name`.
pub fn strategy(name: &str) -> Option<&'static StrategyDef> {
    STRATEGIES.iter().find(|s| s.name == name)
}

/// Every strategy name, table order.
pub fn names() -> Vec<&'static str> {
    STRATEGIES.iter().map(|s| s.name).collect()
}

/// The help text of a `--strategy` flag: every row with its description and parameters.
pub fn help() -> String {
    let rows: Vec<String> = STRATEGIES
        .iter()
        .map(|s| {
            let params: Vec<String> = s.params.iter().map(|(n, d)| format!("{n}={d}")).collect();
            format!("`{}` ({}; --param {})", s.name, s.description, params.join(", "))
        })
        .collect();
    format!("Strategy: {}", rows.join("; "))
}

/// Builds strategy `name` with `params`; option strategies price on `compute`.
///
/// # Errors
/// [`ParamError`] naming the strategy or parameter.
pub fn build(name: &str, params: &Params, compute: Arc<dyn Compute>) -> Result<Box<dyn Strategy>, ParamError> {
    build_priced(name, params, Pricer::direct(compute))
}

/// Whether strategy `name` prices options (and so takes a [`Pricer`] worth batching in sweeps);
/// false for an unknown name.
pub fn prices_options(name: &str) -> bool {
    strategy(name).is_some_and(|s| s.prices_options)
}

/// As [`build`], with option pricing sent to `pricer` (direct, or a batched sweep's handle).
///
/// # Errors
/// [`ParamError`] naming the strategy or parameter.
pub fn build_priced(name: &str, params: &Params, pricer: Pricer) -> Result<Box<dyn Strategy>, ParamError> {
    let s = strategy(name).ok_or_else(|| ParamError::UnknownStrategy(name.into()))?;
    (s.build)(params, pricer)
}
