//! The STAC-A2 job: Greeks of an American (or European) option on a basket of N assets, each
//! under its own Heston model, correlated through their 2N Brownian motions
//! (`../shared/spec/basket-job.md`, `docs/basket.md`; ADR 0031 for the method).
//!
//! * [`job`]: the job file (TOML) parsed and validated, every error naming its key.
//! * [`model`]: the kernels' inputs (QE records, the factor matrix, tangent records, the factor's
//!   derivatives by the price correlations).
//! * [`engine`]: [`price_basket`] on the `Compute` port: Andersen's QE paths, Longstaff-Schwartz
//!   on the basket at every grid date (regression and valuation on independent paths), every
//!   Greek by pathwise derivatives and exact rescaling with the path's normals drawn once.
//! * [`write`]: the `greeks.csv` output.

pub mod engine;
pub mod error;
pub mod job;
pub mod model;
pub mod write;

pub use engine::{
    price_basket, price_basket_observed, price_basket_with, BasketOutcome, BasketSettings, GreekRow, PhaseTimes,
    MOMENT_CHUNK, NBASIS,
};
pub use error::BasketError;
pub use job::{BasketAsset, BasketJob, BasketOption, Exercise, Simulation, DEFAULT_SIMULATION};
pub use model::{Model, GAMMA_BUMP};
pub use write::{greeks_csv, GREEKS_HEADER};
