//! Parameter sweeps: a grid of parameter sets run in parallel (rayon), with a callback per
//! finished run for progress bars; option strategies' sweeps run in lockstep with their pricing
//! batched across runs ([`run_batched`], [`crate::batch`]).

use std::sync::Arc;

use rayon::prelude::*;
use tenor_core::Compute;

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
    sets.par_iter()
        .map(|p| {
            let r = make(p).and_then(|mut s| engine.run(feed, s.as_mut()));
            on_done();
            r
        })
        .collect()
}

/// Most runs one lockstep group holds (one thread each); larger sweeps run in groups.
pub const MAX_LOCKSTEP_RUNS: usize = 256;

/// The results of [`run_batched`] and what its pricing did on the port.
#[derive(Debug)]
pub struct BatchedSweep {
    /// One result per parameter set, in grid order.
    pub results: Vec<Result<RunResult, StrategyError>>,
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
    let groups = sets.len().div_ceil(MAX_LOCKSTEP_RUNS).max(1);
    let total = (feed.len() * groups) as u64;
    let mut results = Vec::with_capacity(sets.len());
    let mut stats = BatchStats::default();
    for (g, chunk) in sets.chunks(MAX_LOCKSTEP_RUNS).enumerate() {
        let base = (g * feed.len()) as u64;
        // The collector outlives no borrow: it reports bars over a channel to a thread here.
        let (tx, rx) = std::sync::mpsc::channel::<usize>();
        let collector = Collector::new(
            compute.clone(),
            chunk.len(),
            Box::new(move |t| {
                // The receiver lives until every handle is gone; a send cannot fail before.
                let _ = tx.send(t);
            }),
        );
        std::thread::scope(|s| {
            s.spawn(move || {
                for t in rx {
                    on_bar(base + t as u64, total);
                }
            });
            let handles: Vec<_> = chunk
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let (collector, make) = (collector.clone(), &make);
                    s.spawn(move || {
                        // Marks the run finished even when the strategy panics, so the other
                        // runs of the group never wait for it.
                        let _finish = Finish(collector.clone(), i);
                        make(p, collector.handle(i)).and_then(|mut st| engine.run(feed, st.as_mut()))
                    })
                })
                .collect();
            for (h, p) in handles.into_iter().zip(chunk) {
                results.push(h.join().unwrap_or_else(|_| {
                    Err(StrategyError { strategy: format!("{p:?}"), bar: 0, message: "the strategy panicked".into() })
                }));
            }
            let st = collector.stats();
            stats.calls += st.calls;
            stats.requests += st.requests;
            stats.products += st.products;
            stats.bars += st.bars;
            // Drops the last sender, which ends the progress thread.
            drop(collector);
        });
        on_bar(base + feed.len() as u64, total);
    }
    BatchedSweep { results, stats }
}

/// Marks a run finished when its thread ends, however it ends.
struct Finish(Arc<Collector>, usize);

impl Drop for Finish {
    fn drop(&mut self) {
        self.0.finish(self.1);
    }
}
