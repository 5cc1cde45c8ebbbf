//! Parameter sweeps: a grid of parameter sets run in parallel (rayon), with a callback per
//! finished run for progress bars.

use rayon::prelude::*;

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
