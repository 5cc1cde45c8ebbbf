//! `barrier`: a single-barrier option (Reiner and Rubinstein 1991; Haug 2007, section 4.17.1).
//!
//! Columns: `barrier` (> 0), `barrier_type` (`down_out`, `down_in`, `up_out`, `up_in`),
//! `rebate` (>= 0, default 0; Haug's convention: a knock-out pays it at the hit, a knock-in at
//! expiry if never knocked in) and `fixings` (empty: continuous monitoring; `n`: the dates
//! `maturity j / n`, j = 1..n).
//!
//! | engine choice | monitoring | engine | method |
//! | --- | --- | --- | --- |
//! | `auto` | continuous | Reiner-Rubinstein closed form; Greeks by central differences that keep the spot on its side of the barrier ([`crate::analytic::barrier_greeks`]) | `analytic` |
//! | `auto` | `fixings` = n | Monte Carlo on the n monitoring dates (`mc_barrier`) | `mc` |
//! | `mc` | continuous | Monte Carlo with the Brownian-bridge survival probability on `steps` steps | `mc` |
//! | `mc` | `fixings` = n | as under `auto` | `mc` |
//!
//! A barrier already breached at the spot is not an error: a knock-out is worth its rebate now,
//! a knock-in the vanilla option. At expiry: a knock-out not hit (or a knock-in hit) pays the
//! vanilla payoff, otherwise the rebate.

use super::{CellWriter, Instrument, McProduct, Product, Simulated};
use crate::analytic::{barrier_greeks, barrier_price};
use crate::engines::{Engine, PricingEngine, Route, ANALYTIC, INTRINSIC, MC};
use crate::mc::{BarrierOption, CallRoute, McConfig, McError, McJob, Monitoring};
use crate::portfolio::cells::{RowReader, Rule};
use crate::portfolio::error::RowProblem;
use crate::portfolio::PriceError;
use crate::types::{BarrierSpec, BarrierType, Greeks, Vanilla};

/// A single-barrier option: a row of kind `barrier`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BarrierTrade {
    /// The underlying European option (spot, strike, maturity, rate, dividend, vol).
    pub vanilla: Vanilla,
    /// Barrier level in currency units.
    pub barrier: f64,
    /// Direction and effect.
    pub barrier_type: BarrierType,
    /// Cash rebate (Haug's convention: paid at the hit for a knock-out, at expiry for a
    /// knock-in never knocked in).
    pub rebate: f64,
    /// `None`: continuous monitoring; `Some(n)`: monitored at `t_j = maturity * j / n`, j = 1..n.
    pub fixings: Option<u32>,
}

/// The `barrier_type` cell for a [`BarrierType`].
#[must_use]
pub fn barrier_type_name(b: BarrierType) -> &'static str {
    match b {
        BarrierType::DownOut => "down_out",
        BarrierType::DownIn => "down_in",
        BarrierType::UpOut => "up_out",
        BarrierType::UpIn => "up_in",
    }
}

/// Parses a `barrier_type` cell.
#[must_use]
pub fn parse_barrier_type(s: &str) -> Option<BarrierType> {
    match s {
        "down_out" => Some(BarrierType::DownOut),
        "down_in" => Some(BarrierType::DownIn),
        "up_out" => Some(BarrierType::UpOut),
        "up_in" => Some(BarrierType::UpIn),
        _ => None,
    }
}

/// The barrier as the Monte Carlo engine's arguments.
fn mc_arguments(b: &BarrierTrade) -> BarrierOption {
    BarrierOption {
        vanilla: b.vanilla,
        barrier_type: b.barrier_type,
        barrier: b.barrier,
        rebate: b.rebate,
        monitoring: b.fixings.map_or(Monitoring::Continuous, Monitoring::Discrete),
    }
}

/// The `barrier` kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Barrier;

impl Instrument for Barrier {
    const NAME: &'static str = "barrier";
    const SUMMARY: &'static str = "Single barrier, continuously or discretely monitored.";
    const ENGINES: &'static [&'static PricingEngine] = &[&ANALYTIC, &MC, &INTRINSIC];
}

impl Product for Barrier {
    type Terms = BarrierTrade;
    const C_CODE: Option<u32> = Some(2);
    const COLUMNS: &'static [&'static str] = &["barrier", "barrier_type", "rebate", "fixings"];

    fn read(row: &mut RowReader<'_>, vanilla: Option<Vanilla>) -> Option<BarrierTrade> {
        let barrier = row.required_number("barrier", Rule::Positive);
        let barrier_type = match row.required("barrier_type") {
            Some(cell) => {
                let text = cell.as_text();
                match parse_barrier_type(&text) {
                    Some(b) => Some(b),
                    None => {
                        let value = text.into_owned();
                        row.error(Some("barrier_type"), RowProblem::UnknownBarrierType { value });
                        None
                    }
                }
            }
            None => None,
        };
        let rebate = row.optional_number("rebate", Rule::NonNegative, 0.0);
        let fixings = match row.cell("fixings") {
            None => Some(None),
            Some(cell) => row.fixings(cell).map(Some),
        };
        Some(BarrierTrade {
            vanilla: vanilla?,
            barrier: barrier?,
            barrier_type: barrier_type?,
            rebate: rebate?,
            fixings: fixings?,
        })
    }

    fn write(b: &BarrierTrade, cells: &mut CellWriter<'_>) {
        cells.number("barrier", b.barrier);
        cells.set("barrier_type", barrier_type_name(b.barrier_type).to_owned());
        cells.number("rebate", b.rebate);
        if let Some(n) = b.fixings {
            cells.set("fixings", n.to_string());
        }
    }

    fn vanilla(b: &BarrierTrade) -> &Vanilla {
        &b.vanilla
    }

    fn at_expiry(b: &BarrierTrade, limits: Greeks) -> Greeks {
        let pays_vanilla = b.barrier_type.breached(b.vanilla.spot, b.barrier) != b.barrier_type.is_out();
        if pays_vanilla {
            Greeks { theta: f64::NAN, ..limits }
        } else {
            Greeks { price: b.rebate, delta: 0.0, gamma: 0.0, vega: 0.0, theta: f64::NAN, rho: 0.0 }
        }
    }

    fn route(b: &BarrierTrade, engine: Engine) -> Route {
        if engine == Engine::Mc || b.fixings.is_some() {
            Route::Mc(McProduct::Barrier(mc_arguments(b)))
        } else {
            Route::Host(&ANALYTIC)
        }
    }

    fn host_price(b: &BarrierTrade, _engine: &PricingEngine, greeks: bool) -> Result<Greeks, PriceError> {
        let spec =
            BarrierSpec { vanilla: b.vanilla, barrier: b.barrier, barrier_type: b.barrier_type, rebate: b.rebate };
        if greeks {
            Ok(barrier_greeks(&spec)?)
        } else {
            Ok(Greeks { price: barrier_price(&spec)?, ..Greeks::default() })
        }
    }

    /// Reiner-Rubinstein's price is about four closed forms; bumped Greeks nine prices.
    fn host_cost(_b: &BarrierTrade, _engine: &PricingEngine, greeks: bool) -> f64 {
        4.0 * if greeks { 9.0 } else { 1.0 }
    }
}

impl Simulated for Barrier {
    type Mc = BarrierOption;

    fn job(arguments: &BarrierOption, cfg: &McConfig, route: CallRoute) -> Result<McJob, McError> {
        crate::mc::barrier_job(arguments, cfg, route)
    }

    fn call_route(arguments: &BarrierOption) -> CallRoute {
        crate::mc::barrier_route(arguments)
    }
}
