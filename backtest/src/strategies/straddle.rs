//! A delta-hedged short straddle on symbol 0, rolled every `roll` bars: sell `contracts`
//! at-the-money calls and puts at the model price, mark them to model every bar, hedge their
//! delta with shares (market orders at the next open), and settle the intrinsic value at expiry.
//!
//! Implied volatility is proxied by the realised volatility of the last `window` closes
//! (annualised, floored at 5 %). Prices and deltas come from Tenor's Monte Carlo engine on the
//! `Compute` backend the strategy is given (`tenor_pricing::mc`, through a [`Pricer`]: direct, or
//! batched with the other runs of a sweep at the same bar, bitwise the same either way), delta
//! by central bump-and-revalue of spot with common random numbers (the day's seed), so the
//! strategy runs unchanged on cpu, sycl or cuda and is bitwise reproducible on one backend for a
//! seed.

use std::sync::Arc;

use tenor_ports::{Compute, Precision};
use tenor_pricing::mc::{McConfig, McProduct};
use tenor_pricing::types::{OptionType, Vanilla};

use super::{take, ParamError, Params};
use crate::batch::Pricer;
use crate::engine::{Context, Strategy, StrategyError};
use crate::order::OrderKind;

/// The straddle currently held.
#[derive(Debug, Clone, Copy)]
struct Position {
    strike: f64,
    opened: usize,
    expiry: usize,
}

/// Delta-hedged short straddle (see the module documentation).
pub struct ShortStraddle {
    pricer: Pricer,
    /// Options sold per leg (each on one share).
    pub contracts: f64,
    /// Bars between rolls (and the option's life).
    pub roll: usize,
    /// Realised-volatility window, bars.
    pub window: usize,
    /// Continuously compounded rate.
    pub rate: f64,
    /// Continuously compounded dividend yield.
    pub dividend: f64,
    /// Monte Carlo paths per pricing.
    pub paths: u64,
    /// Base seed (the bar index is added).
    pub seed: u64,
    open: Option<Position>,
    /// Premiums received in total.
    pub premiums: f64,
    /// Settlements paid in total.
    pub settlements: f64,
}

impl std::fmt::Debug for ShortStraddle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ShortStraddle({} contracts, roll {}, on {})", self.contracts, self.roll, self.pricer.backend())
    }
}

/// Its parameters with their defaults, in the order [`ShortStraddle::from_params`] reads them
/// (the registration table's `params`).
pub const PARAMS: &[(&str, f64)] = &[
    ("contracts", 1000.0),
    ("roll", 21.0),
    ("window", 20.0),
    ("rate", 0.02),
    ("dividend", 0.015),
    ("paths", 8192.0),
    ("seed", 1.0),
];

/// Bars per year for maturities.
const YEAR: f64 = 252.0;

impl ShortStraddle {
    /// From parameters: contracts (1000), roll (21), window (20), rate (0.02), dividend (0.015),
    /// paths (8192), seed (1).
    ///
    /// # Errors
    /// [`ParamError`] naming the parameter and value: unknown parameters; a non-finite value;
    /// non-positive counts; `rate` or `dividend` outside [-1, 1] (per year); a `seed` that is not
    /// a whole number in [0, 2^53]; `window` or `roll` below 2; `paths` not an even whole number
    /// of at least 4 (nothing is rounded silently).
    pub fn from_params(p: &Params, compute: Arc<dyn Compute>) -> Result<Self, ParamError> {
        Self::from_params_priced(p, Pricer::direct(compute))
    }

    /// As [`ShortStraddle::from_params`], pricing through `pricer` (a batched sweep's handle, or
    /// direct): the results are bitwise the same either way.
    ///
    /// # Errors
    /// As [`ShortStraddle::from_params`].
    pub fn from_params_priced(p: &Params, pricer: Pricer) -> Result<Self, ParamError> {
        let v = take(p, "short_straddle", PARAMS)?;
        for (i, name) in [(0, "contracts"), (1, "roll"), (2, "window"), (5, "paths")] {
            if v[i] <= 0.0 {
                return Err(ParamError::Invalid { name: name.into(), value: v[i], reason: "must be positive".into() });
            }
        }
        for (i, name) in [(3, "rate"), (4, "dividend")] {
            if !(-1.0..=1.0).contains(&v[i]) {
                return Err(ParamError::Invalid {
                    name: name.into(),
                    value: v[i],
                    reason: "must be in [-1, 1] (a continuously compounded rate per year)".into(),
                });
            }
        }
        // Up to 2^53 every whole number is an f64, so the seed given is the seed used.
        if !(v[6].fract() == 0.0 && (0.0..=9_007_199_254_740_992.0).contains(&v[6])) {
            return Err(ParamError::Invalid {
                name: "seed".into(),
                value: v[6],
                reason: "must be a whole number in [0, 2^53]".into(),
            });
        }
        if v[2] < 2.0 {
            return Err(ParamError::Invalid {
                name: "window".into(),
                value: v[2],
                reason: "needs at least 2 closes".into(),
            });
        }
        if v[1] < 2.0 {
            return Err(ParamError::Invalid {
                name: "roll".into(),
                value: v[1],
                reason: "must be at least 2 bars (an option opened and settled on the same bar has no life)".into(),
            });
        }
        // Antithetic pairs: the Monte Carlo pricer draws paths in pairs, so the count given is
        // the count used only when it is even (and at least 4 for a standard error).
        if v[5] < 4.0 || v[5] % 2.0 != 0.0 {
            return Err(ParamError::Invalid {
                name: "paths".into(),
                value: v[5],
                reason: "must be an even whole number of at least 4 (antithetic pairs)".into(),
            });
        }
        Ok(Self {
            pricer,
            contracts: v[0],
            roll: super::whole("roll", v[1])?,
            window: super::whole("window", v[2])?,
            rate: v[3],
            dividend: v[4],
            paths: super::whole("paths", v[5])? as u64,
            seed: v[6] as u64,
            open: None,
            premiums: 0.0,
            settlements: 0.0,
        })
    }

    fn realised_vol(&self, ctx: &Context<'_>) -> Option<f64> {
        let closes: Vec<f64> = ctx.history(0).rev().take(self.window + 1).map(|b| b.close).collect();
        if closes.len() < self.window + 1 {
            return None;
        }
        let r: Vec<f64> = closes.windows(2).map(|w| (w[0] / w[1]).ln()).collect();
        let m = r.iter().sum::<f64>() / r.len() as f64;
        let var = r.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (r.len() - 1) as f64;
        Some((var * YEAR).sqrt().max(0.05))
    }

    /// Straddle value and delta per contract at `spot`, `bars_left` bars to expiry: six European
    /// prices (call and put at spot and spot +/- 1 %) in one pricing request for the bar, so a
    /// batched sweep prices every run's bar together.
    fn value_and_delta(
        &self,
        ctx: &Context<'_>,
        spot: f64,
        strike: f64,
        bars_left: usize,
        vol: f64,
    ) -> Result<(f64, f64), StrategyError> {
        let maturity = bars_left as f64 / YEAR;
        let h = 0.01 * spot;
        let mut products = Vec::with_capacity(6);
        for option in [OptionType::Call, OptionType::Put] {
            for s in [spot, spot + h, spot - h] {
                products.push(McProduct::European(Vanilla {
                    option,
                    spot: s,
                    strike,
                    maturity,
                    rate: self.rate,
                    dividend: self.dividend,
                    vol,
                }));
            }
        }
        let cfg = McConfig {
            paths: self.paths,
            seed: self.seed + ctx.index() as u64,
            steps: 1,
            streams: 1,
            precision: Precision::F64,
            ..McConfig::default()
        };
        let out = self
            .pricer
            .price(ctx.index(), &products, &cfg, false)
            .map_err(|e| ctx.error(format!("pricing failed: {e}")))?;
        let mut p = [0.0; 6];
        for (slot, r) in p.iter_mut().zip(out) {
            *slot = r.map_err(|e| ctx.error(format!("pricing failed: {e}")))?.price.price;
        }
        let value = p[0] + p[3];
        let delta = (p[1] - p[2] + p[4] - p[5]) / (2.0 * h);
        Ok((value, delta))
    }
}

impl Strategy for ShortStraddle {
    fn name(&self) -> String {
        format!("short_straddle(roll {}, window {}) on {}", self.roll, self.window, self.pricer.backend())
    }

    fn on_bar(&mut self, ctx: &mut Context<'_>) -> Result<(), StrategyError> {
        let Some(bar) = ctx.bar(0).copied() else { return Ok(()) };
        let t = ctx.index();
        // Expiry: pay the intrinsic value, remove the mark.
        if let Some(pos) = self.open.filter(|p| t >= p.expiry) {
            let payout = self.contracts * ((bar.close - pos.strike).max(0.0) + (pos.strike - bar.close).max(0.0));
            ctx.book_cash(-payout);
            self.settlements += payout;
            ctx.set_mark("straddle", None);
            self.open = None;
        }
        let Some(vol) = self.realised_vol(ctx) else { return Ok(()) };
        // Opening sells at the model value and marks with the same pricing (same spot, strike,
        // maturity, vol and seed), so each bar makes one pricing request.
        let mut sold = false;
        if self.open.is_none() {
            self.open = Some(Position { strike: bar.close.round(), opened: t, expiry: t + self.roll });
            sold = true;
        }
        let target = match self.open {
            Some(pos) => {
                let left = pos.expiry.saturating_sub(t).max(1);
                let (value, delta) = self.value_and_delta(ctx, bar.close, pos.strike, left, vol)?;
                if sold {
                    ctx.book_cash(value * self.contracts);
                    self.premiums += value * self.contracts;
                }
                ctx.set_mark("straddle", Some(-value * self.contracts));
                debug_assert!(pos.opened <= t);
                (delta * self.contracts).round()
            }
            None => 0.0,
        };
        let trade = target - ctx.position(0);
        if trade != 0.0 && ctx.open_orders().is_empty() {
            ctx.order(0, trade, OrderKind::Market);
        }
        Ok(())
    }
}
