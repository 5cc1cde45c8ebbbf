//! `european`: a European call or put under Black-Scholes-Merton.
//!
//! | engine choice | engine | method |
//! | --- | --- | --- |
//! | `auto` | Black-Scholes-Merton closed form with its Greeks (Black and Scholes 1973, Merton 1973; Hull, ch. 15) | `analytic` |
//! | `mc` | Monte Carlo, one step per path (`mc_european`), a call through its put and parity where that lowers the variance | `mc` |
//!
//! No column of its own; at expiry it is worth its payoff.

use super::{CellWriter, Instrument, McProduct, Product, Simulated};
use crate::analytic::black_scholes;
use crate::engines::{Engine, PricingEngine, Route, ANALYTIC, INTRINSIC, MC};
use crate::mc::{CallRoute, McConfig, McError, McJob};
use crate::portfolio::cells::RowReader;
use crate::portfolio::PriceError;
use crate::types::{Greeks, Vanilla};

/// The `european` kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct European;

impl Instrument for European {
    const NAME: &'static str = "european";
    const SUMMARY: &'static str = "European exercise, Black-Scholes-Merton.";
    const ENGINES: &'static [&'static PricingEngine] = &[&ANALYTIC, &MC, &INTRINSIC];
}

impl Product for European {
    type Terms = Vanilla;
    const C_CODE: Option<u32> = Some(0);
    const COLUMNS: &'static [&'static str] = &[];

    fn read(_row: &mut RowReader<'_>, vanilla: Option<Vanilla>) -> Option<Vanilla> {
        vanilla
    }

    fn write(_terms: &Vanilla, _cells: &mut CellWriter<'_>) {}

    fn vanilla(terms: &Vanilla) -> &Vanilla {
        terms
    }

    fn at_expiry(_terms: &Vanilla, limits: Greeks) -> Greeks {
        limits
    }

    fn route(terms: &Vanilla, engine: Engine) -> Route {
        match engine {
            Engine::Mc => Route::Mc(McProduct::European(*terms)),
            Engine::Auto => Route::Host(&ANALYTIC),
        }
    }

    fn host_price(terms: &Vanilla, _engine: &PricingEngine, _greeks: bool) -> Result<Greeks, PriceError> {
        Ok(black_scholes(terms)?)
    }

    /// The unit of host cost: one closed form with its Greeks.
    fn host_cost(_terms: &Vanilla, _engine: &PricingEngine, _greeks: bool) -> f64 {
        1.0
    }
}

impl Simulated for European {
    type Mc = Vanilla;

    fn job(arguments: &Vanilla, cfg: &McConfig, route: CallRoute) -> Result<McJob, McError> {
        crate::mc::european_job(arguments, cfg, route)
    }

    fn call_route(arguments: &Vanilla) -> CallRoute {
        crate::mc::european_route(arguments)
    }
}
