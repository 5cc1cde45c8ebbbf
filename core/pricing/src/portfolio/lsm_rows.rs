//! The American rows of [`super::Engine::Mc`]: Longstaff-Schwartz on the backend
//! ([`crate::american::lsm_price_batch`]), method `lsm`.
//!
//! Settings from the book's: [`BookConfig::paths`] paths, [`BookConfig::steps`] exercise dates
//! (a Bermudan approximation of the American), four Laguerre basis functions, the book's seed
//! and the out-of-sample (low-biased) estimator. Greeks are bump-and-revalue with the bumps of
//! [`crate::mc::greeks`] (those of a European on the same contract) and common random numbers:
//! every bumped copy has the same seed, so the same normals, and fits its own exercise policy on
//! its own regression. With batching on, every American row and bumped copy of the book is one
//! batch (in groups that fit the device, [`crate::american::group_size`]); off, each
//! valuation is its own [`crate::american::lsm_price`]; both give bitwise the same rows. An
//! American whose early exercise is never optimal (a call without dividends, Merton 1973) does
//! not come here: the book prices it by the European closed form (method `analytic`). Every
//! other call is simulated as the American put of the put-call symmetry (McDonald and Schroder
//! 1998) inside [`crate::american::lsm_price_batch`], the one place both routes go through
//! (`lsm_price` is its batch of one); the bumped copies are built from the call and each is
//! mapped on its own, so delta and gamma bump the put's strike, rho its dividend yield, and
//! vega and theta its vol and maturity, and every Greek is the call's.

use tenor_ports::Compute;

use super::price::{row, BookConfig, PriceError};
use super::write::PricedRow;
use crate::american::{lsm_price, lsm_price_batch, AmericanError, LsmConfig, LsmResult};
use crate::engines::LSM;
use crate::mc::greeks::Bumps;
use crate::mc::McPrice;
use crate::types::{Greeks, Vanilla};

/// Basis functions of the book's LSM rows.
pub const LSM_BASIS: u32 = 4;

/// Passes over the paths per valuation (regression, then the out-of-sample valuation).
pub(crate) const LSM_PASSES: u64 = 2;

/// The Longstaff-Schwartz settings of a book.
#[must_use]
pub fn lsm_config(config: &BookConfig) -> LsmConfig {
    LsmConfig {
        paths: config.paths,
        exercise_dates: config.steps,
        nbasis: LSM_BASIS,
        seed: config.seed,
        out_of_sample: true,
    }
}

/// The valuations of one American trade: the trade, then its bumped copies when `greeks`.
fn valuations(v: &Vanilla, greeks: bool) -> (Vec<Vanilla>, Option<Bumps>) {
    if !greeks {
        return (vec![*v], None);
    }
    let b = Bumps::for_product(v);
    (b.products(v), Some(b))
}

/// Prices the American rows `rows` (trade index, contract) of `ids` on `compute` by
/// Longstaff-Schwartz, one batch for all with `batch`; returns each row's result in the order
/// of `rows`.
pub(crate) fn price_lsm_rows<C: Compute + ?Sized>(
    compute: &C,
    ids: &[&str],
    rows: &[Vanilla],
    config: &BookConfig,
    batch: bool,
) -> Vec<Result<PricedRow, PriceError>> {
    let cfg = lsm_config(config);
    let backend = compute.info().backend.clone();
    let planned: Vec<(Vec<Vanilla>, Option<Bumps>)> = rows.iter().map(|v| valuations(v, config.greeks)).collect();
    let all: Vec<Vanilla> = planned.iter().flat_map(|(vs, _)| vs.iter().copied()).collect();
    let results: Vec<Result<LsmResult, AmericanError>> = if batch {
        match lsm_price_batch(compute, &all, &cfg) {
            Ok(r) => r,
            Err(e) => return rows.iter().map(|_| Err(PriceError::American(e.clone()))).collect(),
        }
    } else {
        all.iter().map(|v| lsm_price(compute, v, &cfg)).collect()
    };
    let mut results = results.into_iter();
    planned
        .iter()
        .zip(ids)
        .map(|((vs, bumps), id)| {
            let mine: Vec<Result<LsmResult, AmericanError>> = results.by_ref().take(vs.len()).collect();
            let prices = mine
                .into_iter()
                .map(|r| r.map(|x| McPrice { price: x.price, stderr: x.std_error, paths: cfg.paths }))
                .collect::<Result<Vec<_>, _>>()?;
            let base = *prices.first().ok_or(PriceError::NoResult)?;
            let g = bumps.map_or(Greeks { price: base.price, ..Greeks::default() }, |b| b.greeks(&prices));
            Ok(row(id, &g, Some(base.stderr), config.greeks, LSM.method, &backend))
        })
        .collect()
}
