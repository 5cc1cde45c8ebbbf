//! `heston`: a European call or put under the Heston (1993) model.
//!
//! Columns: `v0`, `kappa`, `theta`, `xi` (> 0) and `rho` (in (-1, 1)): initial variance, mean
//! reversion speed, long-run variance, volatility of variance and correlation, per year; `vol`
//! is optional and ignored.
//!
//! | engine choice | engine | method |
//! | --- | --- | --- |
//! | `auto` | semi-analytic characteristic-function price ([`crate::heston`]); Greeks by central differences, vega against the initial volatility `sqrt(v0)` | `analytic` |
//! | `mc` | QE Monte Carlo (Andersen 2008) on `steps` time steps cut into sub-steps of `kappa dt <= 0.25` (`heston_qe_mc`, [`crate::mc::HestonMcOption`]), vega against `sqrt(v0)` too | `mc` |
//!
//! At expiry it is worth its payoff, as a European.

use super::{CellWriter, Instrument, McProduct, Product, Simulated};
use crate::analytic::bump::{greeks_by_bump, BumpParam, BumpSteps, Bumpable};
use crate::engines::{Engine, PricingEngine, Route, ANALYTIC, INTRINSIC, MC};
use crate::heston::{heston_price, HestonError, HestonOption};
use crate::mc::{CallRoute, HestonMcOption, McConfig, McError, McJob};
use crate::portfolio::cells::{RowReader, Rule};
use crate::portfolio::PriceError;
use crate::types::{Greeks, Vanilla};

/// Heston (1993) model parameters, per year, as the portfolio names them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HestonParams {
    /// Initial variance.
    pub v0: f64,
    /// Mean-reversion speed.
    pub kappa: f64,
    /// Long-run variance.
    pub theta: f64,
    /// Volatility of variance.
    pub xi: f64,
    /// Correlation between the spot and variance Brownian motions.
    pub rho: f64,
}

impl HestonParams {
    /// The pricer's parameters (the portfolio's `xi` is the pricer's `sigma`).
    fn model(&self) -> crate::heston::HestonParams {
        crate::heston::HestonParams { v0: self.v0, kappa: self.kappa, theta: self.theta, sigma: self.xi, rho: self.rho }
    }
}

/// A European option under Heston: a row of kind `heston`; `vanilla.vol` holds the file's `vol`
/// cell if given (ignored by the model) or 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HestonTrade {
    /// The option's terms.
    pub vanilla: Vanilla,
    /// Model parameters.
    pub params: HestonParams,
}

/// A Heston trade for bump-and-revalue: `Vol` is the initial volatility `sqrt(v0)`.
#[derive(Debug, Clone, Copy)]
struct HestonBump {
    option: HestonOption,
    params: crate::heston::HestonParams,
}

impl Bumpable for HestonBump {
    fn get(&self, p: BumpParam) -> f64 {
        match p {
            BumpParam::Spot => self.option.spot,
            BumpParam::Vol => self.params.v0.sqrt(),
            BumpParam::Rate => self.option.rate,
            BumpParam::Maturity => self.option.maturity,
        }
    }
    fn set(&mut self, p: BumpParam, value: f64) {
        match p {
            BumpParam::Spot => self.option.spot = value,
            BumpParam::Vol => self.params.v0 = value * value,
            BumpParam::Rate => self.option.rate = value,
            BumpParam::Maturity => self.option.maturity = value,
        }
    }
}

/// The `heston` kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heston;

impl Instrument for Heston {
    const NAME: &'static str = "heston";
    const SUMMARY: &'static str = "European option under the Heston model.";
    const ENGINES: &'static [&'static PricingEngine] = &[&ANALYTIC, &MC, &INTRINSIC];
}

impl Product for Heston {
    type Terms = HestonTrade;
    /// The C trade record has no Heston parameters.
    const C_CODE: Option<u32> = None;
    const COLUMNS: &'static [&'static str] = &["v0", "kappa", "theta", "xi", "rho"];
    const NEEDS_VOL: bool = false;

    /// The domain of the Heston pricer ([`crate::heston::HestonParams::validate`]), checked
    /// here so a bad cell is named by file, line and column.
    fn read(row: &mut RowReader<'_>, vanilla: Option<Vanilla>) -> Option<HestonTrade> {
        let v0 = row.required_number("v0", Rule::Positive);
        let kappa = row.required_number("kappa", Rule::Positive);
        let theta = row.required_number("theta", Rule::Positive);
        let xi = row.required_number("xi", Rule::Positive);
        let rho = row.required_number("rho", Rule::Correlation);
        let params = HestonParams { v0: v0?, kappa: kappa?, theta: theta?, xi: xi?, rho: rho? };
        Some(HestonTrade { vanilla: vanilla?, params })
    }

    fn write(h: &HestonTrade, cells: &mut CellWriter<'_>) {
        cells.number("v0", h.params.v0);
        cells.number("kappa", h.params.kappa);
        cells.number("theta", h.params.theta);
        cells.number("xi", h.params.xi);
        cells.number("rho", h.params.rho);
    }

    fn vanilla(h: &HestonTrade) -> &Vanilla {
        &h.vanilla
    }

    fn at_expiry(_h: &HestonTrade, limits: Greeks) -> Greeks {
        limits
    }

    fn route(h: &HestonTrade, engine: Engine) -> Route {
        match engine {
            Engine::Mc => Route::Mc(McProduct::Heston(HestonMcOption::new(h.vanilla, h.params.model()))),
            Engine::Auto => Route::Host(&ANALYTIC),
        }
    }

    fn host_price(h: &HestonTrade, _engine: &PricingEngine, greeks: bool) -> Result<Greeks, PriceError> {
        let v = &h.vanilla;
        let q = HestonBump {
            option: HestonOption {
                option: v.option,
                spot: v.spot,
                strike: v.strike,
                maturity: v.maturity,
                rate: v.rate,
                dividend: v.dividend,
            },
            params: h.params.model(),
        };
        // The pricer calls the vol of variance `sigma`; the portfolio's column is `xi`.
        let price = |q: &HestonBump| {
            heston_price(&q.params, &q.option).map_err(|e| match e {
                HestonError::InvalidParameter { name: "sigma", value, reason } => {
                    HestonError::InvalidParameter { name: "xi", value, reason }
                }
                other => other,
            })
        };
        if greeks {
            Ok(greeks_by_bump(price, &q, &BumpSteps::default())?)
        } else {
            Ok(Greeks { price: price(&q)?, ..Greeks::default() })
        }
    }

    /// A quadrature is hundreds of closed forms; bumped Greeks nine of them.
    fn host_cost(_h: &HestonTrade, _engine: &PricingEngine, greeks: bool) -> f64 {
        300.0 * if greeks { 9.0 } else { 1.0 }
    }
}

impl Simulated for Heston {
    type Mc = HestonMcOption;
    /// A pair-step is two QE steps (a few logarithms and square roots each).
    const COST_WEIGHT: f64 = 2.0;

    fn job(arguments: &HestonMcOption, cfg: &McConfig, route: CallRoute) -> Result<McJob, McError> {
        crate::mc::heston_job(arguments, cfg, route)
    }

    fn call_route(arguments: &HestonMcOption) -> CallRoute {
        crate::mc::heston_route(arguments)
    }
}
