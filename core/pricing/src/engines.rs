//! # Engines: one row per pricing method, and the arguments a product hands to each
//!
//! QuantLib's split (`ql/pricingengine.hpp`): a product fills an engine's arguments, the engine
//! computes the results, and neither knows the other's internals. Here every row of
//! [`ENGINES`] is one method of the book: the `method` cell its rows carry in `tenor price`'s
//! output (`shared/spec/portfolio-csv.md`), its code in the C ABI (`TENOR_METHOD_*`, the header
//! is generated from this table), where it runs and whether its rows carry a standard error.
//! The products ([`crate::products`]) say which of these rows price them ([`Instrument::ENGINES`])
//! and, for one trade under one [`Engine`] choice, which row and with what arguments
//! ([`Route`]).
//!
//! | row | arguments | runs |
//! | --- | --- | --- |
//! | [`INTRINSIC`] | the trade at `maturity` 0 ([`Route::Expiry`]) | host |
//! | [`ANALYTIC`] | the product's own closed form ([`Route::Host`], [`Product::host_price`]) | host, all cores |
//! | [`PDE`] | the product's own finite-difference grid ([`Route::Host`]) | host, all cores |
//! | [`MC`] | a [`McProduct`] ([`Route::Mc`]): batch kernels, one launch per stream and kernel ([`crate::mc`]) | backend |
//! | [`LSM`] | an American contract ([`Route::Lsm`]): Longstaff-Schwartz batches ([`crate::american`]) | backend |
//!
//! A product that is not a row of the portfolio (the STAC-A2 basket of issue 27, with its own
//! job file) plugs in the same way: one more row here naming its method and code, its own
//! arguments type and its own engine function; [`Instrument`] is all it implements (ADR 0033).
//!
//! [`Instrument::ENGINES`]: crate::products::Instrument::ENGINES
//! [`Instrument`]: crate::products::Instrument
//! [`Product::host_price`]: crate::products::Product::host_price
//! [`McProduct`]: crate::products::McProduct

use crate::products::McProduct;
use crate::types::Vanilla;

/// Where an engine's work runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// On the host's cores, without the compute port (the `backend` column says `host`).
    Host,
    /// On the compute backend (the `backend` column names it).
    Device,
}

/// One pricing engine: a row of [`ENGINES`].
#[derive(Debug, PartialEq, Eq)]
pub struct PricingEngine {
    /// The `method` cell of the rows it prices (`analytic`, `mc`, ...).
    pub method: &'static str,
    /// Its code in the C ABI (`TENOR_METHOD_<METHOD>` of `include/tenor.h`): stable, never reused.
    pub c_code: u32,
    /// Where it runs.
    pub place: Place,
    /// Whether its prices are Monte Carlo estimates (rows carry a standard error).
    pub monte_carlo: bool,
    /// What it is, in one line (the C header's comment, the docs).
    pub summary: &'static str,
}

/// The payoff now: a trade at `maturity` 0 ([`crate::portfolio`]'s expiry rule), on the host.
pub const INTRINSIC: PricingEngine = PricingEngine {
    method: "intrinsic",
    c_code: 5,
    place: Place::Host,
    monte_carlo: false,
    summary: "The payoff now, on the host (a trade at expiry, any engine).",
};

/// A closed form (or semi-analytic formula) on the host.
pub const ANALYTIC: PricingEngine = PricingEngine {
    method: "analytic",
    c_code: 0,
    place: Place::Host,
    monte_carlo: false,
    summary: "A closed form on the host.",
};

/// Finite differences on the host (the American's Crank-Nicolson grid, [`crate::american`]).
pub const PDE: PricingEngine = PricingEngine {
    method: "pde",
    c_code: 1,
    place: Place::Host,
    monte_carlo: false,
    summary: "Finite differences on the host.",
};

/// Monte Carlo batch kernels on the backend ([`crate::mc`]).
pub const MC: PricingEngine = PricingEngine {
    method: "mc",
    c_code: 2,
    place: Place::Device,
    monte_carlo: true,
    summary: "Monte Carlo on the backend.",
};

/// Least-squares Monte Carlo (Longstaff and Schwartz 2001) on the backend ([`crate::american`]).
pub const LSM: PricingEngine = PricingEngine {
    method: "lsm",
    c_code: 4,
    place: Place::Device,
    monte_carlo: true,
    summary: "Least-squares Monte Carlo on the backend (an American under engine 1; Longstaff and Schwartz 2001).",
};

/// Every engine of the book, in the order of their C codes.
pub const ENGINES: [&PricingEngine; 5] = [&ANALYTIC, &PDE, &MC, &LSM, &INTRINSIC];

/// The C ABI's method code of a row no engine priced (`TENOR_METHOD_NOT_PRICED`); no engine
/// row has it.
pub const NOT_PRICED_C_CODE: u32 = 3;

impl PricingEngine {
    /// The row whose `method` is `method`.
    #[must_use]
    pub fn by_method(method: &str) -> Option<&'static PricingEngine> {
        ENGINES.into_iter().find(|e| e.method == method)
    }
}

/// Which engines may price a book's rows: the user's choice (`--engine`, Python's `engine=`,
/// the C ABI's `engine` code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// Closed forms where they exist, Monte Carlo otherwise (each product's route).
    #[default]
    Auto,
    /// Monte Carlo for every supported kind, so the backend carries the whole book.
    Mc,
}

impl Engine {
    /// Both choices, in the order of their codes.
    pub const ALL: [Engine; 2] = [Engine::Auto, Engine::Mc];

    /// The choice's name (`auto`, `mc`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Mc => "mc",
        }
    }

    /// The choice named `name`, exactly.
    #[must_use]
    pub fn parse(name: &str) -> Option<Engine> {
        Engine::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// Its code in the C ABI (`TenorBookConfig::engine`): 0 auto, 1 mc.
    #[must_use]
    pub fn code(self) -> u32 {
        match self {
            Engine::Auto => 0,
            Engine::Mc => 1,
        }
    }

    /// The choice with C code `code`.
    #[must_use]
    pub fn from_code(code: u32) -> Option<Engine> {
        Engine::ALL.into_iter().find(|e| e.code() == code)
    }

    /// What it does, in a few words (the command's summary line).
    #[must_use]
    pub fn summary(self) -> &'static str {
        match self {
            Engine::Auto => "closed forms where they exist",
            Engine::Mc => "Monte Carlo for every row",
        }
    }
}

/// How one trade is priced: the engine row and the arguments the product fills for it
/// ([`crate::products::Product::route`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Route {
    /// Maturity 0: the payoff now ([`INTRINSIC`]).
    Expiry,
    /// On the host by the product's own [`crate::products::Product::host_price`], under the
    /// method of this row ([`ANALYTIC`] or [`PDE`]).
    Host(&'static PricingEngine),
    /// The Monte Carlo batch kernels ([`MC`]).
    Mc(McProduct),
    /// Longstaff-Schwartz on an American contract ([`LSM`]).
    Lsm(Vanilla),
}

impl Route {
    /// The engine row that prices the trade.
    #[must_use]
    pub fn engine(&self) -> &'static PricingEngine {
        match self {
            Route::Expiry => &INTRINSIC,
            Route::Host(e) => e,
            Route::Mc(_) => &MC,
            Route::Lsm(_) => &LSM,
        }
    }
}
