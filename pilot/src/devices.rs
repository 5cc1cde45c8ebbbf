//! Scaling over devices (ADR 0020), beside the scaling over streams: a fixed total of the fused
//! Monte Carlo workloads split over the first 1, 2, ... N devices of a selector (`cuda:*`, or
//! `sim:*` with `TENOR_SIM_DEVICES`), each device's part enqueued and awaited on a host thread
//! of its own; and the pilot's mixed book priced over 1..N devices
//! ([`tenor_pricing::portfolio::price_book_sharded`]), its rows checked bitwise against one
//! device.

use std::time::Instant;

use serde::Serialize;
use tenor_ports::{ComputeError, Devices, Sharding};
use tenor_pricing::portfolio::{price_book_sharded, BookConfig, BookRun, Engine, PricedRow, Trade};

use super::measure::{time, Stats};
use super::workloads::{prepare, Workload};
use super::{largest_fitting, Suite};

/// One row of the device-scaling table.
#[derive(Debug, Clone, Serialize)]
pub struct DeviceScalingRow {
    /// The selector measured (`cuda:*`).
    pub selector: String,
    /// Workload name (`mc_european`, `mc_asian`, or `book` for the mixed book).
    pub workload: String,
    /// Total size (paths, or trades for the book).
    pub size: u64,
    /// Devices the total was split over.
    pub devices: usize,
    /// Timings of the whole split run.
    pub warm: Stats,
    /// Work units per second at the median.
    pub rate: f64,
    /// Unit of `rate`.
    pub unit: String,
    /// Rate over the one-device rate of the same workload.
    pub speedup: f64,
    /// For the book: whether every row is bitwise that of one device (always true for the
    /// workloads, which are not compared).
    pub identical: bool,
}

/// Fused Monte Carlo workloads of the device-scaling table.
pub const WORKLOADS: [Workload; 2] = [Workload::McEuropean, Workload::McAsian];

/// Splits a total of `total` paths of `w` over `devices` (equal parts, at least 2 each), runs
/// every part on its device's default stream on a thread per device, and times the whole.
fn run_split(devices: &Devices, w: Workload, total: u64, budget_s: f64) -> Result<Stats, ComputeError> {
    let k = devices.len() as u64;
    let part = (total / k).max(2);
    let prepared = devices
        .devices()
        .iter()
        .map(|d| prepare(d.as_ref(), d.default_stream(), w, part))
        .collect::<Result<Vec<_>, _>>()?;
    for d in devices.devices() {
        d.synchronize()?;
    }
    let each = Sharding {
        shards: (0..devices.len()).map(|d| vec![d]).collect(),
        loads: vec![part as f64; devices.len()],
        items: devices.len(),
    };
    time(1, 50, budget_s, || {
        let outcomes = devices.run_shards(&each, |d, dev, _| {
            Some(prepared[d].enqueue(dev, dev.default_stream()).and_then(|()| dev.synchronize()))
        })?;
        for o in outcomes {
            o?.unwrap_or(Ok(()))?;
        }
        Ok(())
    })
}

/// A row's numeric columns as bits and its method (`None`: the row failed).
type RowBits = Option<(Vec<Option<u64>>, String)>;

/// A row's numbers and method as bits, for the identity check.
fn bits(rows: &[Result<PricedRow, tenor_pricing::portfolio::PriceError>]) -> Vec<RowBits> {
    rows.iter()
        .map(|r| {
            r.as_ref().ok().map(|r| {
                let v = [Some(r.price), r.stderr, r.delta, r.gamma, r.vega, r.theta, r.rho];
                (v.iter().map(|x| x.map(f64::to_bits)).collect(), r.method.clone())
            })
        })
        .collect()
}

/// The pilot's mixed book (every Monte Carlo kind of [`super::book::KINDS`], `copies` each).
fn mixed_book(copies: usize) -> Result<Vec<Trade>, ComputeError> {
    let mut trades = Vec::new();
    for (kind, row) in super::book::KINDS {
        trades.extend(super::book::book(kind, row, copies)?);
    }
    Ok(trades)
}

/// The devices of `devices` (label and name) and their peer access, one line each, as checked
/// by the adapter (`cuDeviceCanAccessPeer` on CUDA; `n/a` where it does not apply).
#[must_use]
pub fn environment(devices: &Devices) -> Vec<String> {
    devices
        .labels()
        .iter()
        .zip(devices.devices())
        .map(|(l, d)| format!("{l}: {}", d.info().name))
        .chain(devices.peers().lines().into_iter().map(|l| format!("peer access {l}")))
        .chain((devices.len() == 1).then(|| "1 device: no peer access to check".to_owned()))
        .collect()
}

/// Measures every workload over the first 1..N devices of `devices` (named `selector`).
///
/// # Errors
/// A device error, or a book row that failed.
pub fn measure(
    selector: &str,
    devices: &Devices,
    suite: Suite,
    max_bytes: u64,
) -> Result<Vec<DeviceScalingRow>, ComputeError> {
    let mut rows = Vec::new();
    let counts: Vec<usize> = (1..=devices.len()).collect();
    for w in WORKLOADS {
        // The total is the largest size one device holds; k devices hold a k-th each.
        let Some(total) = largest_fitting(suite, w, max_bytes) else { continue };
        let mut one = None;
        for &k in &counts {
            let set = devices.prefix(k);
            let warm = run_split(&set, w, total, suite.budget_s())?;
            let rate = w.work(total / k as u64 * k as u64) / warm.median_s;
            let base = *one.get_or_insert(rate);
            rows.push(DeviceScalingRow {
                selector: selector.to_owned(),
                workload: w.name().into(),
                size: total,
                devices: k,
                rate,
                unit: w.unit().into(),
                speedup: rate / base,
                identical: true,
                warm,
            });
        }
    }
    let trades = mixed_book(super::book::copies(suite))?;
    let cfg =
        BookConfig { engine: Engine::Mc, paths: super::book::paths(suite), greeks: true, ..BookConfig::default() };
    let run = BookRun::default();
    let mut reference = None;
    let mut one = None;
    for &k in &counts {
        let set = devices.prefix(k);
        let mut times = Vec::new();
        let mut last = Vec::new();
        // A warm-up call (kernel loading on every device), then the median of three.
        for repeat in 0..4 {
            let t0 = Instant::now();
            let (out, _, _) = price_book_sharded(&set, &trades, &cfg, &run, &|_| {});
            let s = t0.elapsed().as_secs_f64();
            if let Some((i, Err(e))) = out.iter().enumerate().find(|(_, r)| r.is_err()) {
                return Err(ComputeError::InvalidArgument(format!(
                    "device scaling book on {k} devices: trade {i}: {e}"
                )));
            }
            if repeat > 0 {
                times.push(s);
            }
            last = out;
        }
        let warm = Stats::from_samples(times);
        let b = bits(&last);
        let identical = reference.get_or_insert_with(|| b.clone()) == &b;
        let rate = trades.len() as f64 / warm.median_s;
        let base = *one.get_or_insert(rate);
        rows.push(DeviceScalingRow {
            selector: selector.to_owned(),
            workload: "book".into(),
            size: trades.len() as u64,
            devices: k,
            rate,
            unit: "trades/s".into(),
            speedup: rate / base,
            identical,
            warm,
        });
    }
    Ok(rows)
}
