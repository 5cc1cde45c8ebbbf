//! A book over several devices: the parsed book is split by estimated cost, each shard is priced
//! with the one-device book pricer ([`super::price_book_with`]) on its own device, all shards at once,
//! and the rows are gathered back in input order.
//!
//! Sharding is a layer above the book pricer, not inside it: whatever the pricer does on one
//! device (batch kernels, host closed forms beside the device's work) it does on each shard.
//! Every row's value depends only on the trade and the [`BookConfig`] (one Philox seed for every
//! Monte Carlo row, numbers indexed by (seed, path, step), per-block partial sums added in block
//! order), so the gathered rows are bitwise those of one device, whatever the split (ADR 0020).
//!
//! Cost: the two kinds of work are balanced apart, since they run in different places. Monte
//! Carlo rows run on the shard's device and cost `paths x (steps + 0.15) x valuations`
//! path-steps, times 1.25 for an arithmetic Asian (its geometric control variate is a second
//! average); the `0.15` is the payoff and the per-path set-up. Measured on the example book's
//! kinds on the simulated device (`measure_cost_per_kind` in `tests/portfolio_shard.rs`, 20,000
//! paths, Greeks on): 13 to 16 ns per estimated path-step for every kind;
//! closed-form rows run on the host's cores and cost an estimate of their evaluation time in
//! Black-Scholes evaluations ([`host_cost`]). Each class is split longest-processing-time first
//! over the devices, so every device gets an equal share of both.

use tenor_ports::{shard_by_cost, Devices, Sharding};

use super::price::{lsm_steps_valuations, mc_steps_valuations, route};
use super::trade::Trade;
use super::write::PricedRow;
use super::{price_book_timed, BookConfig, BookRun, BookTimes, PriceError};
use crate::engines::{Place, Route, ANALYTIC};
use crate::mc::McPayoff;

/// Where a row's work runs, for balancing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TradeCost {
    /// On the device: estimated path-steps.
    Device(f64),
    /// On the host: estimated work in Black-Scholes evaluations.
    Host(f64),
}

/// Host cost of a closed-form row in Black-Scholes evaluations, as its product estimates it
/// under its first host engine (the one `--engine auto` uses;
/// [`crate::products::Product::host_cost`], measured on the example book's kinds with
/// `cargo test -p tenor-pricing --test portfolio_shard -- --ignored --nocapture`; ratios, not
/// times): a European closed form with its Greeks is 1, a finite-difference grid or a Heston
/// quadrature thousands.
#[must_use]
pub fn host_cost(trade: &Trade, greeks: bool) -> f64 {
    let engine = trade.kind().engines().iter().find(|e| e.place == Place::Host).copied().unwrap_or(&ANALYTIC);
    trade.kind.host_cost(engine, greeks)
}

/// Estimated cost of pricing `trade` under `config` ([`TradeCost`]).
#[must_use]
pub fn trade_cost(trade: &Trade, config: &BookConfig) -> TradeCost {
    match route(trade, config.engine) {
        Route::Expiry => TradeCost::Host(0.1),
        Route::Host(engine) => TradeCost::Host(trade.kind.host_cost(engine, config.greeks)),
        Route::Mc(p) => {
            let (steps, valuations) = mc_steps_valuations(&p, config);
            TradeCost::Device(p.cost_weight() * config.paths as f64 * (steps as f64 + 0.15) * valuations as f64)
        }
        Route::Lsm(_) => {
            let (steps, valuations) = lsm_steps_valuations(config);
            TradeCost::Device(config.paths as f64 * (steps as f64 + 0.15) * valuations as f64)
        }
    }
}

/// How a book was split: the combined shards (device and host rows of each device together, in
/// input order) and the loads of each class per device.
#[derive(Debug, Clone, PartialEq)]
pub struct BookSharding {
    /// Trade indices per device, in input order (what each device's pricer is given).
    pub sharding: Sharding,
    /// Estimated Monte Carlo path-steps per device.
    pub device_loads: Vec<f64>,
    /// Estimated host work per device, in Black-Scholes evaluations.
    pub host_loads: Vec<f64>,
}

impl BookSharding {
    /// Largest over mean load, minus one, of the device work (0 when there is none).
    #[must_use]
    pub fn device_imbalance(&self) -> f64 {
        tenor_ports::multi::imbalance(&self.device_loads)
    }
    /// The same for the host work.
    #[must_use]
    pub fn host_imbalance(&self) -> f64 {
        tenor_ports::multi::imbalance(&self.host_loads)
    }
}

/// Splits `trades` over `devices` devices: Monte Carlo rows by path-steps and closed-form rows by
/// host cost, each longest-processing-time first ([`shard_by_cost`]).
#[must_use]
pub fn shard_book(trades: &[Trade], config: &BookConfig, devices: usize) -> BookSharding {
    let mut device_rows = Vec::new();
    let mut device_costs = Vec::new();
    let mut host_rows = Vec::new();
    let mut host_costs = Vec::new();
    for (i, t) in trades.iter().enumerate() {
        match trade_cost(t, config) {
            TradeCost::Device(c) => {
                device_rows.push(i);
                device_costs.push(c);
            }
            TradeCost::Host(c) => {
                host_rows.push(i);
                host_costs.push(c);
            }
        }
    }
    let on_device = shard_by_cost(&device_costs, devices);
    let on_host = shard_by_cost(&host_costs, devices);
    let shards: Vec<Vec<usize>> = on_device
        .shards
        .iter()
        .zip(&on_host.shards)
        .map(|(d, h)| {
            let mut s: Vec<usize> = d.iter().map(|k| device_rows[*k]).chain(h.iter().map(|k| host_rows[*k])).collect();
            s.sort_unstable();
            s
        })
        .collect();
    let loads = on_device.loads.iter().zip(&on_host.loads).map(|(d, h)| d + h).collect();
    BookSharding {
        sharding: Sharding { shards, loads, items: trades.len() },
        device_loads: on_device.loads,
        host_loads: on_host.loads,
    }
}

/// What [`price_book_sharded`] returns: the rows in input order (as [`super::price_book_with`]'s),
/// the split used, and the times (rows and allocations summed over the devices, durations the
/// slowest device's).
pub type ShardedBook = (Vec<Result<PricedRow, PriceError>>, BookSharding, BookTimes);

/// Prices `trades` over every device of `devices`: split by [`shard_book`], each shard priced by
/// [`super::price_book_with`] on its device (one host thread per device, all at once), rows gathered in
/// input order. `progress(done)` gets the number of trades finished over all devices. With one
/// device this is [`super::price_book_with`] on it. The rows are bitwise those of one device.
///
/// # Errors
/// Per row, as [`super::price_book_with`]; a device whose worker fails as a whole (a panic) gives its
/// rows [`PriceError::NoResult`], the other devices' rows are kept.
pub fn price_book_sharded(
    devices: &Devices,
    trades: &[Trade],
    config: &BookConfig,
    run: &BookRun,
    progress: &(dyn Fn(usize) + Sync),
) -> ShardedBook {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let split = shard_book(trades, config, devices.len());
    let done: Vec<AtomicUsize> = (0..devices.len()).map(|_| AtomicUsize::new(0)).collect();
    let parts = devices.run_shards(&split.sharding, |d, dev, shard| {
        let mine: Vec<Trade> = shard.iter().map(|i| trades[*i].clone()).collect();
        price_book_timed(dev, &mine, config, run, &mut |k| {
            done[d].store(k, Ordering::Relaxed);
            progress(done.iter().map(|x| x.load(Ordering::Relaxed)).sum());
        })
    });
    let mut times = BookTimes::default();
    let mut out: Vec<Option<Result<PricedRow, PriceError>>> = (0..trades.len()).map(|_| None).collect();
    // The sharding is made for this device count, so `run_shards` cannot refuse it; a worker
    // that panicked leaves its rows without a result.
    for (shard, part) in split.sharding.shards.iter().zip(parts.into_iter().flatten()) {
        if let Ok((rows, t)) = part {
            times.host_rows += t.host_rows;
            times.device_rows += t.device_rows;
            times.host = times.host.max(t.host);
            times.device = times.device.max(t.device);
            times.allocations += t.allocations;
            times.allocated_bytes += t.allocated_bytes;
            for (i, r) in shard.iter().zip(rows) {
                out[*i] = Some(r);
            }
        }
    }
    (out.into_iter().map(|r| r.unwrap_or(Err(PriceError::NoResult))).collect(), split, times)
}
