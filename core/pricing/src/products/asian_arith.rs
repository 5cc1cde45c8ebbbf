//! `asian_arith`: a fixed-strike average-price option on the arithmetic average of `fixings`
//! equally spaced dates (columns and expiry rule: [`super::asian`]).
//!
//! | engine choice | engine | method |
//! | --- | --- | --- |
//! | `auto`, `mc` | Monte Carlo on the fixings (`mc_asian`) with the geometric Asian's closed form as control variate (Kemna and Vorst 1990), a call through its put and the exact `e^{-rT} (E[A] - K)` | `mc` |

use super::{asian, AsianTrade, CellWriter, Instrument, McProduct, Product, Simulated};
use crate::engines::{Engine, PricingEngine, Route, INTRINSIC, MC};
use crate::mc::{AsianOption, CallRoute, McConfig, McError, McJob};
use crate::portfolio::cells::RowReader;
use crate::portfolio::PriceError;
use crate::types::{Greeks, Vanilla};

/// The `asian_arith` kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsianArith;

impl Instrument for AsianArith {
    const NAME: &'static str = "asian_arith";
    const SUMMARY: &'static str = "Fixed-strike average-price option on the arithmetic average.";
    const ENGINES: &'static [&'static PricingEngine] = &[&MC, &INTRINSIC];
}

impl Product for AsianArith {
    type Terms = AsianTrade;
    const C_CODE: Option<u32> = Some(4);
    const COLUMNS: &'static [&'static str] = asian::COLUMNS;

    fn read(row: &mut RowReader<'_>, vanilla: Option<Vanilla>) -> Option<AsianTrade> {
        asian::read(row, vanilla)
    }

    fn write(a: &AsianTrade, cells: &mut CellWriter<'_>) {
        asian::write(a, cells);
    }

    fn vanilla(a: &AsianTrade) -> &Vanilla {
        &a.vanilla
    }

    fn at_expiry(_a: &AsianTrade, limits: Greeks) -> Greeks {
        asian::at_expiry(limits)
    }

    /// Monte Carlo under either choice: there is no closed form.
    fn route(a: &AsianTrade, _engine: Engine) -> Route {
        Route::Mc(McProduct::AsianArithmetic(asian::mc_arguments(a)))
    }

    /// Never routed to the host.
    fn host_price(_a: &AsianTrade, _engine: &PricingEngine, _greeks: bool) -> Result<Greeks, PriceError> {
        Err(PriceError::NoResult)
    }

    /// Never on the host but at expiry, where a row is a payoff.
    fn host_cost(_a: &AsianTrade, _engine: &PricingEngine, _greeks: bool) -> f64 {
        1.0
    }
}

impl Simulated for AsianArith {
    type Mc = AsianOption;
    /// The geometric control variate is a second average on every path.
    const COST_WEIGHT: f64 = 1.25;

    fn job(arguments: &AsianOption, cfg: &McConfig, route: CallRoute) -> Result<McJob, McError> {
        crate::mc::asian_job(arguments, cfg, true, route)
    }

    fn call_route(arguments: &AsianOption) -> CallRoute {
        crate::mc::asian_route(arguments)
    }
}
