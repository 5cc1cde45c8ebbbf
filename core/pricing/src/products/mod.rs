//! # Products: one module per kind, one row per kind
//!
//! QuantLib's instrument/engine split (`ql/instrument.hpp`, `ql/pricingengine.hpp`): a product
//! says what it is and fills the arguments of the engines that price it; the engines
//! ([`crate::engines`], [`crate::mc`], [`crate::american`], [`crate::analytic`]) know no
//! product. Each module below is one kind of the portfolio format
//! (`shared/spec/portfolio-csv.md`) and implements [`Product`]: its columns and how they are
//! read and checked, how it is written back, its value at expiry, which engine prices it under
//! `--engine auto|mc` and with what arguments, its closed form on the host, and its cost for
//! sharding; a kind the Monte Carlo batch kernels price also implements [`Simulated`].
//!
//! The table at the end of this file has one row per kind:
//! `Tag(Terms) => module::Product [, mc Variant(Arguments)];`. From it come [`Kind`] (the
//! tags, in the spec's order), [`TradeKind`] (a row's terms), [`McProduct`] (the Monte Carlo
//! engine's arguments) and every dispatch the parser, the book pricer, the sharding, the expiry
//! rule, the Greeks, the C ABI and Python read; the portfolio's columns
//! ([`crate::portfolio::COLUMNS`]) are the common ones and then every row's own, in the
//! table's order. **Adding a kind is its module and its row.**
//!
//! A product that is not a row of the portfolio (the STAC-A2 basket of issue 27: several
//! assets, its own job file) implements [`Instrument`] alone and prices through its own engine
//! row of [`crate::engines`] (ADR 0033).

pub mod american;
pub mod asian;
pub mod asian_arith;
pub mod asian_geo;
pub mod barrier;
pub mod european;
pub mod heston;
mod table;

use std::fmt::Debug;

use crate::analytic::bump::BumpDomain;
use crate::engines::{Engine, PricingEngine, Route};
use crate::mc::{
    AsianOption, BarrierOption, CallRoute, HestonMcOption, McArguments, McConfig, McError, McJob, McPayoff,
};
use crate::portfolio::cells::RowReader;
use crate::portfolio::PriceError;
use crate::types::{Greeks, Vanilla};

pub use asian::AsianTrade;
pub use barrier::BarrierTrade;
pub use heston::{HestonParams, HestonTrade};

/// What every product is, a row of the portfolio or not (QuantLib's `Instrument`): its name
/// and the engines that may price it.
pub trait Instrument {
    /// The product's name: the portfolio's `kind` cell for a row.
    const NAME: &'static str;
    /// What it is, in one line (the docs, the C header's comment).
    const SUMMARY: &'static str;
    /// Every engine row that may price it (under some engine choice, at some maturity).
    const ENGINES: &'static [&'static PricingEngine];
}

/// A kind of the portfolio format: a row's terms and everything the layers above ask of them.
/// The methods are called through the table's dispatch ([`TradeKind`], [`Kind`]).
pub trait Product: Instrument {
    /// The trade's terms (what a row of this kind holds).
    type Terms: Copy + Debug + PartialEq + Send + Sync + 'static;

    /// The kind's code in the C ABI (`TENOR_KIND_*` of `include/tenor.h`, generated from the
    /// table): stable, never reused; `None` where the C trade record has no fields for it.
    const C_CODE: Option<u32>;

    /// The columns the kind reads beyond the common ones (`id`, `kind`, `type`, `spot`,
    /// `strike`, `maturity`, `rate`, `dividend`, `vol`), in the order it reads them; a filled
    /// cell of any other kind's column is an error.
    const COLUMNS: &'static [&'static str];

    /// Whether the `vol` column is required (else it is optional and ignored, as `heston`'s).
    const NEEDS_VOL: bool = true;

    /// Reads and checks the kind's own cells; the common cells are read already (`vanilla`,
    /// `None` when one of them was bad: the own cells are still checked, so every bad cell of
    /// the row is reported). `None` when a cell is bad (the problem is in `row`).
    fn read(row: &mut RowReader<'_>, vanilla: Option<Vanilla>) -> Option<Self::Terms>;

    /// Writes the kind's own cells (the inverse of [`Product::read`]).
    fn write(terms: &Self::Terms, cells: &mut CellWriter<'_>);

    /// The option terms every kind has.
    fn vanilla(terms: &Self::Terms) -> &Vanilla;

    /// Price and Greek limits at `maturity` 0 ([`crate::portfolio`]'s expiry rule), given the
    /// limits of the vanilla payoff `limits` (theta: the carry off the money, NaN at it).
    fn at_expiry(terms: &Self::Terms, limits: Greeks) -> Greeks;

    /// The engine row that prices the trade under `engine`, with its arguments (maturity > 0;
    /// a trade at expiry is the payoff now, whatever its kind).
    fn route(terms: &Self::Terms, engine: Engine) -> Route;

    /// The price (and Greeks when `greeks`) on the host, by the method of `engine` (the row
    /// [`Product::route`] gave: [`crate::engines::ANALYTIC`] or [`crate::engines::PDE`]).
    ///
    /// # Errors
    /// The engine's refusal of the terms, as a [`PriceError`].
    fn host_price(terms: &Self::Terms, engine: &PricingEngine, greeks: bool) -> Result<Greeks, PriceError>;

    /// Estimated host work of [`Product::host_price`] in Black-Scholes evaluations with
    /// Greeks (measured ratios, `tests/portfolio_shard.rs`), for sharding a book.
    fn host_cost(terms: &Self::Terms, engine: &PricingEngine, greeks: bool) -> f64;
}

/// A kind the Monte Carlo batch kernels price ([`crate::mc`]): the argument shape its
/// [`McProduct`] variant holds and the job (kernel and estimator) that simulates it.
pub trait Simulated: Product {
    /// The argument shape.
    type Mc: McArguments;

    /// Device cost per estimated path-step relative to a European's (sharding).
    const COST_WEIGHT: f64 = 1.0;

    /// The job for `arguments` under `cfg`, a call simulated on `route`.
    ///
    /// # Errors
    /// As [`McPayoff::job`].
    fn job(arguments: &Self::Mc, cfg: &McConfig, route: CallRoute) -> Result<McJob, McError>;

    /// How a call on `arguments` is simulated ([`McPayoff::call_route`]).
    fn call_route(arguments: &Self::Mc) -> CallRoute;
}

/// The cells of one trade being written, in [`crate::portfolio::COLUMNS`] order (empty = not
/// applicable).
pub struct CellWriter<'a> {
    pub(crate) cells: &'a mut [String],
}

impl CellWriter<'_> {
    /// Sets column `column` to `text` (a column not in [`crate::portfolio::COLUMNS`] is a bug in
    /// the product's module, caught by the round-trip tests).
    pub fn set(&mut self, column: &str, text: String) {
        if let Some(i) = crate::portfolio::COLUMNS.iter().position(|c| *c == column) {
            self.cells[i] = text;
        }
    }

    /// Sets numeric column `column` to `x` (shortest round-trip text).
    pub fn number(&mut self, column: &str, x: f64) {
        self.set(column, crate::portfolio::write::number(x));
    }
}

/// The kinds, as the messages list them: `european, american, ... or heston`.
#[must_use]
pub fn kind_list() -> String {
    let names: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

impl Kind {
    /// Parses a `kind` cell (exact, lower case); `None` for anything else.
    #[must_use]
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// The kind with C code `code` ([`Kind::c_code`]).
    #[must_use]
    pub fn from_c_code(code: u32) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.c_code() == Some(code))
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

table::products! {
    /// European exercise under Black-Scholes-Merton.
    European(Vanilla) => european::European, mc European(Vanilla);
    /// American exercise under Black-Scholes-Merton.
    American(Vanilla) => american::American;
    /// Single barrier, continuously or discretely monitored.
    Barrier(BarrierTrade) => barrier::Barrier, mc Barrier(BarrierOption);
    /// Fixed-strike average-price option on the geometric average.
    AsianGeo(AsianTrade) => asian_geo::AsianGeo, mc AsianGeometric(AsianOption);
    /// Fixed-strike average-price option on the arithmetic average.
    AsianArith(AsianTrade) => asian_arith::AsianArith, mc AsianArithmetic(AsianOption);
    /// European option under the Heston model.
    Heston(HestonTrade) => heston::Heston, mc Heston(HestonMcOption);
}
