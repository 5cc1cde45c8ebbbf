//! Moving-average crossover on symbol 0: long when the fast simple moving average of closes is
//! above the slow one, flat otherwise.

use super::{take, ParamError, Params};
use crate::engine::{Context, Strategy, StrategyError};
use crate::order::OrderKind;

/// Its parameters with their defaults (the registration table's `params`).
pub const PARAMS: &[(&str, f64)] = &[("fast", 50.0), ("slow", 200.0)];

/// Long/flat SMA crossover, trading whole shares with market orders at the next open.
#[derive(Debug, Clone)]
pub struct SmaCrossover {
    /// Fast window, bars.
    pub fast: usize,
    /// Slow window, bars.
    pub slow: usize,
    closes: Vec<f64>,
}

impl SmaCrossover {
    /// A crossover of windows `fast` < `slow`.
    ///
    /// # Errors
    /// A window of zero or fast >= slow.
    pub fn new(fast: usize, slow: usize) -> Result<Self, ParamError> {
        if fast == 0 || fast >= slow {
            return Err(ParamError::Invalid {
                name: "fast".into(),
                value: fast as f64,
                reason: format!("needs 0 < fast < slow = {slow}"),
            });
        }
        Ok(Self { fast, slow, closes: Vec::new() })
    }
    /// From `fast` (default 50) and `slow` (default 200).
    ///
    /// # Errors
    /// As [`SmaCrossover::new`]; unknown parameters.
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let v = take(p, "sma_crossover", PARAMS)?;
        Self::new(super::whole("fast", v[0])?, super::whole("slow", v[1])?)
    }
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

impl Strategy for SmaCrossover {
    fn name(&self) -> String {
        format!("sma_crossover({},{})", self.fast, self.slow)
    }
    fn on_bar(&mut self, ctx: &mut Context<'_>) -> Result<(), StrategyError> {
        let Some(b) = ctx.bar(0).copied() else { return Ok(()) };
        self.closes.push(b.close);
        let n = self.closes.len();
        if n < self.slow || !ctx.open_orders().is_empty() {
            return Ok(());
        }
        let long = mean(&self.closes[n - self.fast..]) > mean(&self.closes[n - self.slow..]);
        let held = ctx.position(0);
        if long && held == 0.0 {
            let shares = (ctx.equity() * 0.99 / b.close).floor();
            ctx.order(0, shares, OrderKind::Market);
        } else if !long && held > 0.0 {
            ctx.order(0, -held, OrderKind::Market);
        }
        Ok(())
    }
}
