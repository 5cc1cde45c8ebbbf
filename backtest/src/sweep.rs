//! Parameter sweeps: a grid of parameter sets run in parallel (rayon), with a callback per
//! finished run for progress bars; option strategies' sweeps run in lockstep with their pricing
//! batched across runs ([`run_batched`], [`crate::batch`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rayon::prelude::*;
use tenor_ports::Compute;

use crate::batch::{BatchStats, Collector, Pricer};
use crate::engine::{Engine, RunResult, Strategy, StrategyError};
use crate::feed::Feed;
use crate::strategies::Params;

/// The Cartesian product of `axes` (name, values).
pub fn grid(axes: &[(String, Vec<f64>)]) -> Vec<Params> {
    let mut out = vec![Params::new()];
    for (name, values) in axes {
        out = out
            .into_iter()
            .flat_map(|p| {
                values.iter().map(move |v| {
                    let mut q = p.clone();
                    q.insert(name.clone(), *v);
                    q
                })
            })
            .collect();
    }
    out
}

/// The parameter sets of a sweep: the Cartesian product of `axes` ([`grid`]), each set
/// completed by `base` (a parameter on an axis keeps the axis's value). Grid order.
pub fn sets(axes: &[(String, Vec<f64>)], base: &Params) -> Vec<Params> {
    grid(axes)
        .into_iter()
        .map(|mut p| {
            for (k, v) in base {
                p.entry(k.clone()).or_insert(*v);
            }
            p
        })
        .collect()
}

/// Runs `make(params)` for every parameter set in parallel; results in grid order.
pub fn run<F>(
    engine: &Engine,
    feed: &Feed,
    sets: &[Params],
    make: F,
    on_done: &(dyn Fn() + Sync),
) -> Vec<Result<RunResult, StrategyError>>
where
    F: Fn(&Params) -> Result<Box<dyn Strategy>, StrategyError> + Sync,
{
    run_summarised(engine, feed, sets, make, &|r| r, on_done)
}

/// [`run`] keeping only `summarise(result)` of each run: the run's equity curve and fills are
/// dropped as soon as it finishes, so a sweep holds one summary per run (the metrics, about a
/// hundred bytes) instead of every run's full result (about 89 KB per run on 5,000 daily bars)
/// until the end. Summaries in grid order.
pub fn run_summarised<F, T>(
    engine: &Engine,
    feed: &Feed,
    sets: &[Params],
    make: F,
    summarise: &(dyn Fn(RunResult) -> T + Sync),
    on_done: &(dyn Fn() + Sync),
) -> Vec<Result<T, StrategyError>>
where
    F: Fn(&Params) -> Result<Box<dyn Strategy>, StrategyError> + Sync,
    T: Send,
{
    sets.par_iter()
        .map(|p| {
            let r = make(p).and_then(|mut s| engine.run(feed, s.as_mut())).map(summarise);
            on_done();
            r
        })
        .collect()
}

/// Most runs one lockstep group holds (one thread each); larger sweeps run in groups.
pub const MAX_LOCKSTEP_RUNS: usize = 256;

/// The results of [`run_batched`] and what its pricing did on the port (`T`: what is kept of
/// each run, the whole [`RunResult`] unless [`run_batched_groups_summarised`] is used).
#[derive(Debug)]
pub struct BatchedSweep<T = RunResult> {
    /// One result per parameter set, in grid order.
    pub results: Vec<Result<T, StrategyError>>,
    /// `price_batch` calls, requests and products, summed over the lockstep groups.
    pub stats: BatchStats,
}

/// Runs `make(params, pricer)` for every parameter set with the runs' option pricing batched:
/// the runs of a group (at most [`MAX_LOCKSTEP_RUNS`], one thread each) advance in lockstep and
/// every bar's pricing requests of all of them go to `compute` in one `price_batch` call per
/// distinct Monte Carlo configuration ([`crate::batch`]). Strategies must price through the
/// [`Pricer`] they are given; their results are bitwise those of [`run`] with
/// [`Pricer::direct`]. `on_bar(done, total)` reports progress in bars: `done` of `total`
/// (bars times groups) are behind every run that prices.
pub fn run_batched<F>(
    engine: &Engine,
    feed: &Feed,
    compute: Arc<dyn Compute>,
    sets: &[Params],
    make: F,
    on_bar: &(dyn Fn(u64, u64) + Sync),
) -> BatchedSweep
where
    F: Fn(&Params, Pricer) -> Result<Box<dyn Strategy>, StrategyError> + Sync,
{
    run_batched_groups(engine, feed, compute, sets, 1, make, on_bar)
}

/// [`run_batched`] with the runs split into `groups` lockstep groups of about equal size (at
/// most [`MAX_LOCKSTEP_RUNS`] runs each) that run concurrently, `groups` at a time, each making
/// its own `price_batch` call per bar: `groups` calls per bar instead of one. For backends whose
/// launches run on the calling thread (cpu), where one call per bar prices on one core;
/// results are bitwise the same for any `groups`. Progress counts bars times groups.
pub fn run_batched_groups<F>(
    engine: &Engine,
    feed: &Feed,
    compute: Arc<dyn Compute>,
    sets: &[Params],
    groups: usize,
    make: F,
    on_bar: &(dyn Fn(u64, u64) + Sync),
) -> BatchedSweep
where
    F: Fn(&Params, Pricer) -> Result<Box<dyn Strategy>, StrategyError> + Sync,
{
    run_batched_groups_summarised(engine, feed, compute, sets, groups, make, &|r| r, on_bar)
}

/// [`run_batched_groups`] keeping only `summarise(result)` of each run, taken in the run's
/// thread as it ends (see [`run_summarised`]): bounded memory per run.
#[allow(clippy::too_many_arguments)]
pub fn run_batched_groups_summarised<F, T>(
    engine: &Engine,
    feed: &Feed,
    compute: Arc<dyn Compute>,
    sets: &[Params],
    groups: usize,
    make: F,
    summarise: &(dyn Fn(RunResult) -> T + Sync),
    on_bar: &(dyn Fn(u64, u64) + Sync),
) -> BatchedSweep<T>
where
    F: Fn(&Params, Pricer) -> Result<Box<dyn Strategy>, StrategyError> + Sync,
    T: Send,
{
    let groups = groups.max(1);
    let size = sets.len().div_ceil(groups).clamp(1, MAX_LOCKSTEP_RUNS);
    let chunks: Vec<&[Params]> = sets.chunks(size).collect();
    let total = (feed.len() * chunks.len().max(1)) as u64;
    let done: Vec<AtomicU64> = chunks.iter().map(|_| AtomicU64::new(0)).collect();
    let report = |g: usize, t: u64| {
        if let Some(d) = done.get(g) {
            d.fetch_max(t, Ordering::Relaxed);
        }
        on_bar(done.iter().map(|d| d.load(Ordering::Relaxed)).sum(), total);
    };
    let mut results = Vec::with_capacity(sets.len());
    let mut stats = BatchStats::default();
    for (w, wave) in chunks.chunks(groups).enumerate() {
        std::thread::scope(|s| {
            let handles: Vec<_> = wave
                .iter()
                .enumerate()
                .map(|(k, chunk)| {
                    let (compute, make, report) = (compute.clone(), &make, &report);
                    let g = w * groups + k;
                    s.spawn(move || run_group(engine, feed, compute, chunk, make, summarise, &|t| report(g, t)))
                })
                .collect();
            for (h, chunk) in handles.into_iter().zip(wave) {
                match h.join() {
                    Ok((r, st)) => {
                        results.extend(r);
                        stats.calls += st.calls;
                        stats.requests += st.requests;
                        stats.products += st.products;
                        stats.bars += st.bars;
                    }
                    Err(_) => results.extend(chunk.iter().map(|p| Err(panicked(p)))),
                }
            }
        });
    }
    BatchedSweep { results, stats }
}

fn panicked(p: &Params) -> StrategyError {
    StrategyError { strategy: format!("{p:?}"), bar: 0, message: "the strategy panicked".into() }
}

/// One lockstep group: a thread per run, one collector; `report(t)` as the group passes bar `t`.
fn run_group<F, T>(
    engine: &Engine,
    feed: &Feed,
    compute: Arc<dyn Compute>,
    chunk: &[Params],
    make: &F,
    summarise: &(dyn Fn(RunResult) -> T + Sync),
    report: &(dyn Fn(u64) + Sync),
) -> (Vec<Result<T, StrategyError>>, BatchStats)
where
    F: Fn(&Params, Pricer) -> Result<Box<dyn Strategy>, StrategyError> + Sync,
    T: Send,
{
    // The collector outlives no borrow: it reports bars over a channel to a thread here.
    let (tx, rx) = std::sync::mpsc::channel::<usize>();
    let collector = Collector::new(
        compute,
        chunk.len(),
        Box::new(move |t| {
            // The receiver lives until every handle is gone; a send cannot fail before.
            let _ = tx.send(t);
        }),
    );
    let mut results = Vec::with_capacity(chunk.len());
    let stats = std::thread::scope(|s| {
        s.spawn(move || {
            for t in rx {
                report(t as u64);
            }
        });
        let handles: Vec<_> = chunk
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let collector = collector.clone();
                s.spawn(move || {
                    // Marks the run finished even when the strategy panics, so the other runs of
                    // the group never wait for it.
                    let _finish = Finish(collector.clone(), i);
                    make(p, collector.handle(i)).and_then(|mut st| engine.run(feed, st.as_mut())).map(summarise)
                })
            })
            .collect();
        for (h, p) in handles.into_iter().zip(chunk) {
            results.push(h.join().unwrap_or_else(|_| Err(panicked(p))));
        }
        let stats = collector.stats();
        // Drops the last sender, which ends the progress thread.
        drop(collector);
        stats
    });
    report(feed.len() as u64);
    (results, stats)
}

/// Marks a run finished when its thread ends, however it ends.
struct Finish(Arc<Collector>, usize);

impl Drop for Finish {
    fn drop(&mut self) {
        self.0.finish(self.1);
    }
}

/// Estimated cost of one run of a sweep for sharding: its `paths` parameter if it has one
/// (option strategies' Monte Carlo work grows with it), else 1.
#[must_use]
pub fn run_cost(params: &Params) -> f64 {
    params.get("paths").copied().filter(|p| p.is_finite() && *p > 0.0).unwrap_or(1.0)
}

/// Splits the parameter sets of a sweep into at most `chunks` chunks of about equal estimated
/// cost ([`run_cost`], longest processing time first: [`tenor_ports::shard_by_cost`], the split
/// [`run_batched_sharded`] makes over devices), for running them elsewhere (a cluster's
/// workers). Indices into `sets`, ascending in each chunk; empty chunks left out.
#[must_use]
pub fn plan(sets: &[Params], chunks: usize) -> Vec<Vec<usize>> {
    let costs: Vec<f64> = sets.iter().map(run_cost).collect();
    tenor_ports::shard_by_cost(&costs, chunks).shards.into_iter().filter(|s| !s.is_empty()).collect()
}

/// [`run_batched_groups_summarised`] over every device of `devices`: the parameter sets are
/// split by [`run_cost`] ([`tenor_ports::Devices::shard`]), each device runs its sets in
/// lockstep groups with its own `price_batch` calls on its own streams and pool, all devices at
/// once, and the results come back in grid order. A run's results do not depend on which
/// group or device priced it (seeds per product, [`crate::batch`]), so they are bitwise those
/// of one device. Progress counts bars times groups over all devices.
#[allow(clippy::too_many_arguments)]
pub fn run_batched_sharded<F, T>(
    engine: &Engine,
    feed: &Feed,
    devices: &tenor_ports::Devices,
    sets: &[Params],
    groups: usize,
    make: F,
    summarise: &(dyn Fn(RunResult) -> T + Sync),
    on_bar: &(dyn Fn(u64, u64) + Sync),
) -> BatchedSweep<T>
where
    F: Fn(&Params, Pricer) -> Result<Box<dyn Strategy>, StrategyError> + Sync,
    T: Send,
{
    let costs: Vec<f64> = sets.iter().map(run_cost).collect();
    let sharding = devices.shard(&costs);
    let progress: Vec<(AtomicU64, AtomicU64)> =
        (0..devices.len()).map(|_| (AtomicU64::new(0), AtomicU64::new(0))).collect();
    let parts = devices.run_shards(&sharding, |d, _, shard| {
        let mine: Vec<Params> = shard.iter().map(|i| sets[*i].clone()).collect();
        let compute = devices.devices()[d].clone();
        let out =
            run_batched_groups_summarised(engine, feed, compute, &mine, groups, &make, summarise, &|done, total| {
                progress[d].0.store(done, Ordering::SeqCst);
                progress[d].1.store(total, Ordering::SeqCst);
                let sum = |f: fn(&(AtomicU64, AtomicU64)) -> u64| progress.iter().map(f).sum::<u64>();
                on_bar(sum(|p| p.0.load(Ordering::SeqCst)), sum(|p| p.1.load(Ordering::SeqCst)));
            });
        Some(out)
    });
    let mut results: Vec<Option<Result<T, StrategyError>>> = (0..sets.len()).map(|_| None).collect();
    let mut stats = BatchStats::default();
    // The sharding is for this device count, so `run_shards` cannot refuse it; a device whose
    // worker panicked leaves its runs without a result (reported as panicked below).
    for (shard, part) in sharding.shards.iter().zip(parts.into_iter().flatten()) {
        if let Ok(Some(out)) = part {
            for (i, r) in shard.iter().zip(out.results) {
                results[*i] = Some(r);
            }
            stats.calls += out.stats.calls;
            stats.requests += out.stats.requests;
            stats.products += out.stats.products;
            stats.bars += out.stats.bars;
        }
    }
    let results = results.into_iter().zip(sets).map(|(r, p)| r.unwrap_or_else(|| Err(panicked(p)))).collect();
    BatchedSweep { results, stats }
}
