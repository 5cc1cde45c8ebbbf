//! Buy and hold: spend the starting cash on the first symbol at the first opportunity.

use super::{take, ParamError, Params};
use crate::engine::{Context, Strategy, StrategyError};
use crate::order::OrderKind;

/// Its parameters with their defaults (the registration table's `params`).
pub const PARAMS: &[(&str, f64)] = &[("fraction", 1.0)];

/// Buys `fraction` of the starting equity of symbol 0 (whole shares) with a market order after
/// the first bar, and holds.
#[derive(Debug, Clone)]
pub struct BuyAndHold {
    /// Share of equity to invest, in (0, 1].
    pub fraction: f64,
    done: bool,
}

impl BuyAndHold {
    /// From `fraction` (default 1).
    ///
    /// # Errors
    /// Unknown parameters; a fraction outside (0, 1].
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let v = take(p, "buy_and_hold", PARAMS)?;
        if !(v[0] > 0.0 && v[0] <= 1.0) {
            return Err(ParamError::Invalid {
                name: "fraction".into(),
                value: v[0],
                reason: "must be in (0, 1]".into(),
            });
        }
        Ok(Self { fraction: v[0], done: false })
    }
}

impl Strategy for BuyAndHold {
    fn name(&self) -> String {
        "buy_and_hold".into()
    }
    fn on_bar(&mut self, ctx: &mut Context<'_>) -> Result<(), StrategyError> {
        if self.done {
            return Ok(());
        }
        if let Some(b) = ctx.bar(0) {
            // Sized on today's close; filled at tomorrow's open (whole shares, 1 % cash buffer
            // for a gap up and costs).
            let shares = (self.fraction * ctx.equity() * 0.99 / b.close).floor();
            ctx.order(0, shares, OrderKind::Market);
            self.done = true;
        }
        Ok(())
    }
}
