//! The "basket" workloads: the STAC-A2 job (`docs/basket.md`) at its baseline (every Greek) and
//! its large size (the price), cold and warm, through the engine `tenor basket` runs
//! ([`tenor_pricing::basket::price_basket`]).
//!
//! Cold: the backend opened afresh and its first job (kernels compiled or loaded from the
//! adapter's cache); warm: the median of the next [`WARM_RUNS`] jobs on that device. The jobs are
//! `examples/basket/baseline.toml` and `examples/basket/large.toml`; the quick suite scales their
//! paths and steps down.

use std::time::Instant;

use serde::Serialize;
use tenor_ports::ComputeError;
use tenor_pricing::basket::{price_basket, BasketJob};

use super::Suite;

/// Timed warm jobs after the cold one.
pub const WARM_RUNS: usize = 3;

/// The baseline job (5 assets x 25,000 paths x 252 steps).
pub const BASELINE: &str = include_str!("../../examples/basket/baseline.toml");
/// The large job (10 assets x 100,000 paths x 1,260 steps).
pub const LARGE: &str = include_str!("../../examples/basket/large.toml");

/// One measurement.
#[derive(Debug, Clone, Serialize)]
pub struct BasketRow {
    /// Backend.
    pub backend: String,
    /// `basket_baseline` or `basket_large`.
    pub workload: String,
    /// Assets.
    pub assets: usize,
    /// Paths.
    pub paths: u64,
    /// Steps (exercise dates).
    pub steps: u32,
    /// Every Greek (the baseline) or the price alone (the large problem).
    pub greeks: bool,
    /// Priced scenarios, bumps included.
    pub valuations: u64,
    /// Opening the backend, seconds.
    pub open_s: f64,
    /// The backend's opening and its first job, seconds.
    pub cold_s: f64,
    /// Median of the warm jobs, seconds.
    pub warm_s: f64,
    /// The estimated price.
    pub price: f64,
}

/// The workloads of `suite`: (name, job text, paths, steps, Greeks).
pub fn workloads(suite: Suite) -> [(&'static str, &'static str, u64, u32, bool); 2] {
    match suite {
        Suite::Quick => [("basket_baseline", BASELINE, 2_000, 50, true), ("basket_large", LARGE, 4_000, 126, false)],
        Suite::Default => {
            [("basket_baseline", BASELINE, 25_000, 252, true), ("basket_large", LARGE, 100_000, 1_260, false)]
        }
    }
}

/// Measures both workloads on `backend`, each on a freshly opened device.
///
/// # Errors
/// The backend not opening, a job the engine refuses (named), the engine's errors.
pub fn measure(backend: &str, suite: Suite) -> Result<Vec<BasketRow>, ComputeError> {
    let mut rows = Vec::new();
    for (name, text, paths, steps, greeks) in workloads(suite) {
        let mut job = BasketJob::from_toml(text).map_err(|e| ComputeError::InvalidArgument(format!("{name}: {e}")))?;
        job.simulation.paths = paths;
        job.simulation.steps = steps;
        let err = |e: tenor_pricing::basket::BasketError| ComputeError::InvalidArgument(format!("{name}: {e}"));
        let t0 = Instant::now();
        let dev = tenor_registry::open(backend)?;
        let open_s = t0.elapsed().as_secs_f64();
        let first = price_basket(&*dev, &job, greeks).map_err(err)?;
        let cold_s = t0.elapsed().as_secs_f64();
        let mut warm = Vec::with_capacity(WARM_RUNS);
        for _ in 0..WARM_RUNS {
            let t = Instant::now();
            price_basket(&*dev, &job, greeks).map_err(err)?;
            warm.push(t.elapsed().as_secs_f64());
        }
        warm.sort_by(f64::total_cmp);
        rows.push(BasketRow {
            backend: backend.to_owned(),
            workload: name.to_owned(),
            assets: job.n(),
            paths,
            steps,
            greeks,
            valuations: first.valuations,
            open_s,
            cold_s,
            warm_s: warm[warm.len() / 2],
            price: first.rows[0].value,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both jobs parse, with the sizes STAC-A2 names.
    #[test]
    fn the_jobs_are_the_stac_a2_sizes() {
        let b = BasketJob::from_toml(BASELINE).expect("baseline");
        assert_eq!((b.n(), b.simulation.paths, b.simulation.steps), (5, 25_000, 252));
        let l = BasketJob::from_toml(LARGE).expect("large");
        assert_eq!((l.n(), l.simulation.paths, l.simulation.steps), (10, 100_000, 1_260));
    }
}
