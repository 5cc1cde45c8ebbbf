//! `american`: an American call or put under Black-Scholes-Merton.
//!
//! | engine choice | engine | method |
//! | --- | --- | --- |
//! | `auto` | Crank-Nicolson finite differences with Rannacher start-up and Richardson extrapolation; Greeks by central differences of the grid's price ([`crate::american`]) | `pde` |
//! | `mc`, early exercise never optimal (a call with no dividend and `rate >= 0`, Merton 1973, [`crate::american::no_early_exercise`]) | the European closed form | `analytic` |
//! | `mc`, otherwise | Longstaff-Schwartz on the backend, batched over the book's American rows and their bumped copies ([`crate::portfolio::lsm_rows`]); a call as the American put of the put-call symmetry (McDonald and Schroder 1998) | `lsm` |
//!
//! No column of its own. At expiry it is worth its payoff; its theta limit is the European's
//! where that is negative and 0 otherwise (it may be exercised instead).

use super::{CellWriter, Instrument, Product};
use crate::analytic::black_scholes;
use crate::engines::{Engine, PricingEngine, Route, ANALYTIC, INTRINSIC, LSM, PDE};
use crate::portfolio::cells::RowReader;
use crate::portfolio::PriceError;
use crate::types::{Greeks, Vanilla};

/// The `american` kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct American;

impl Instrument for American {
    const NAME: &'static str = "american";
    const SUMMARY: &'static str = "American exercise (Crank-Nicolson finite differences).";
    const ENGINES: &'static [&'static PricingEngine] = &[&PDE, &ANALYTIC, &LSM, &INTRINSIC];
}

impl Product for American {
    type Terms = Vanilla;
    const C_CODE: Option<u32> = Some(1);
    const COLUMNS: &'static [&'static str] = &[];

    fn read(_row: &mut RowReader<'_>, vanilla: Option<Vanilla>) -> Option<Vanilla> {
        vanilla
    }

    fn write(_terms: &Vanilla, _cells: &mut CellWriter<'_>) {}

    fn vanilla(terms: &Vanilla) -> &Vanilla {
        terms
    }

    fn at_expiry(_terms: &Vanilla, limits: Greeks) -> Greeks {
        Greeks { theta: limits.theta.min(0.0), ..limits }
    }

    /// Under `mc`, an American whose early exercise is never optimal takes the European closed
    /// form: Longstaff-Schwartz's low bias there was far beyond its standard error (a call at
    /// vol 5: 56.5 +/- 2.9 against 97.3).
    fn route(terms: &Vanilla, engine: Engine) -> Route {
        match engine {
            Engine::Mc if crate::american::no_early_exercise(terms) => Route::Host(&ANALYTIC),
            Engine::Mc => Route::Lsm(*terms),
            Engine::Auto => Route::Host(&PDE),
        }
    }

    fn host_price(terms: &Vanilla, engine: &PricingEngine, greeks: bool) -> Result<Greeks, PriceError> {
        if *engine == ANALYTIC {
            return Ok(black_scholes(terms)?);
        }
        if greeks {
            Ok(crate::american::american_fd_greeks(terms)?)
        } else {
            Ok(Greeks { price: crate::american::american_fd(terms)?, ..Greeks::default() })
        }
    }

    /// A finite-difference grid is thousands of closed forms (four grids with Greeks); the
    /// European closed form under `mc` is one.
    fn host_cost(_terms: &Vanilla, engine: &PricingEngine, greeks: bool) -> f64 {
        if *engine == ANALYTIC {
            1.0
        } else {
            4000.0 * if greeks { 4.0 } else { 1.0 }
        }
    }
}
