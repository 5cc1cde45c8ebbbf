//! Example strategies, and the registry the command line uses to build them by name.

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
    /// Unknown strategy name.
    #[error("unknown strategy {0:?}; known: buy_and_hold, sma_crossover, short_straddle")]
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

/// Builds strategy `name` with `params`; option strategies price on `compute`.
///
/// # Errors
/// [`ParamError`] naming the strategy or parameter.
pub fn build(name: &str, params: &Params, compute: Arc<dyn Compute>) -> Result<Box<dyn Strategy>, ParamError> {
    match name {
        "buy_and_hold" => Ok(Box::new(buy_and_hold::BuyAndHold::from_params(params)?)),
        "sma_crossover" => Ok(Box::new(sma_crossover::SmaCrossover::from_params(params)?)),
        "short_straddle" => Ok(Box::new(straddle::ShortStraddle::from_params(params, compute)?)),
        other => Err(ParamError::UnknownStrategy(other.into())),
    }
}

/// Whether strategy `name` prices options (and so takes a [`Pricer`] worth batching in sweeps).
pub fn prices_options(name: &str) -> bool {
    name == "short_straddle"
}

/// As [`build`], with option pricing sent to `pricer` (direct, or a batched sweep's handle).
///
/// # Errors
/// [`ParamError`] naming the strategy or parameter.
pub fn build_priced(name: &str, params: &Params, pricer: Pricer) -> Result<Box<dyn Strategy>, ParamError> {
    match name {
        "short_straddle" => Ok(Box::new(straddle::ShortStraddle::from_params_priced(params, pricer)?)),
        other => build(other, params, pricer.compute()),
    }
}
