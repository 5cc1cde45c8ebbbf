//! `asian_geo`: a fixed-strike average-price option on the geometric average of `fixings`
//! equally spaced dates (columns and expiry rule: [`super::asian`]).
//!
//! | engine choice | engine | method |
//! | --- | --- | --- |
//! | `auto` | discrete geometric closed form (Kemna and Vorst 1990; [`crate::analytic::asian`]); Greeks by central differences, the time bump moving every fixing with the maturity | `analytic` |
//! | `mc` | Monte Carlo on the fixings (`mc_asian`, its geometric sums), a call through its put and the closed-form `C - P` | `mc` |

use super::{asian, AsianTrade, CellWriter, Instrument, McProduct, Product, Simulated};
use crate::analytic::asian::{AsianError, GeometricAsian};
use crate::analytic::bump::{greeks_by_bump, BumpParam, BumpSteps, Bumpable};
use crate::engines::{Engine, PricingEngine, Route, ANALYTIC, INTRINSIC, MC};
use crate::mc::{AsianOption, CallRoute, McConfig, McError, McJob};
use crate::portfolio::cells::RowReader;
use crate::portfolio::PriceError;
use crate::types::{Greeks, Vanilla};

/// The `asian_geo` kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsianGeo;

impl Instrument for AsianGeo {
    const NAME: &'static str = "asian_geo";
    const SUMMARY: &'static str = "Fixed-strike average-price option on the geometric average.";
    const ENGINES: &'static [&'static PricingEngine] = &[&ANALYTIC, &MC, &INTRINSIC];
}

/// A geometric Asian whose maturity bump shifts every fixing with it (calendar time passing
/// moves all dates together, as [`crate::mc::greeks`] does for the Monte Carlo Asian).
#[derive(Debug, Clone, Copy)]
struct GeoAsianBump {
    vanilla: Vanilla,
    fixings: u32,
    base_maturity: f64,
}

impl GeoAsianBump {
    fn price(&self) -> Result<f64, AsianError> {
        let v = &self.vanilla;
        let shift = v.maturity - self.base_maturity;
        let n = f64::from(self.fixings);
        let times: Vec<f64> =
            (1..=self.fixings).map(|j| (self.base_maturity * f64::from(j) / n + shift).max(0.0)).collect();
        GeometricAsian {
            option: v.option,
            spot: v.spot,
            strike: v.strike,
            rate: v.rate,
            dividend: v.dividend,
            vol: v.vol,
            expiry: v.maturity,
        }
        .average_price(&times)
    }
}

impl Bumpable for GeoAsianBump {
    fn get(&self, p: BumpParam) -> f64 {
        self.vanilla.get(p)
    }
    fn set(&mut self, p: BumpParam, value: f64) {
        self.vanilla.set(p, value);
    }
}

impl Product for AsianGeo {
    type Terms = AsianTrade;
    const C_CODE: Option<u32> = Some(3);
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

    fn route(a: &AsianTrade, engine: Engine) -> Route {
        match engine {
            Engine::Mc => Route::Mc(McProduct::AsianGeometric(asian::mc_arguments(a))),
            Engine::Auto => Route::Host(&ANALYTIC),
        }
    }

    fn host_price(a: &AsianTrade, _engine: &PricingEngine, greeks: bool) -> Result<Greeks, PriceError> {
        let g = GeoAsianBump { vanilla: a.vanilla, fixings: a.fixings, base_maturity: a.vanilla.maturity };
        if greeks {
            Ok(greeks_by_bump(|q: &GeoAsianBump| q.price(), &g, &BumpSteps::default())?)
        } else {
            Ok(Greeks { price: g.price()?, ..Greeks::default() })
        }
    }

    /// The closed form grows with the fixings; bumped Greeks are nine of them.
    fn host_cost(a: &AsianTrade, _engine: &PricingEngine, greeks: bool) -> f64 {
        (1.0 + 0.1 * f64::from(a.fixings)) * if greeks { 9.0 } else { 1.0 }
    }
}

impl Simulated for AsianGeo {
    type Mc = AsianOption;

    fn job(arguments: &AsianOption, cfg: &McConfig, route: CallRoute) -> Result<McJob, McError> {
        crate::mc::asian_job(arguments, cfg, false, route)
    }

    fn call_route(arguments: &AsianOption) -> CallRoute {
        crate::mc::asian_route(arguments)
    }
}
