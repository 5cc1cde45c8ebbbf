//! Timing: warm-up, repeats, median and spread.
//!
//! Device work is asynchronous, so every timed region ends with a synchronisation (METHOD:
//! "time properly": warm up first so module load, run-time compilation and handle creation stay
//! out of warm numbers; repeat and take the median).

use std::time::Instant;

use serde::Serialize;

/// Summary of repeated timings, in seconds.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Stats {
    /// Median.
    pub median_s: f64,
    /// Fastest.
    pub min_s: f64,
    /// Slowest.
    pub max_s: f64,
    /// Interquartile range over the median (relative spread).
    pub rel_iqr: f64,
    /// Timed repeats.
    pub repeats: usize,
}

/// Quantile of sorted data by linear interpolation.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

impl Stats {
    /// Summarises raw samples (seconds).
    pub fn from_samples(mut samples: Vec<f64>) -> Self {
        samples.sort_by(f64::total_cmp);
        let median = quantile(&samples, 0.5);
        Self {
            median_s: median,
            min_s: samples.first().copied().unwrap_or(f64::NAN),
            max_s: samples.last().copied().unwrap_or(f64::NAN),
            rel_iqr: (quantile(&samples, 0.75) - quantile(&samples, 0.25)) / median,
            repeats: samples.len(),
        }
    }
}

/// Runs `f` `warmup` times untimed, then until `repeats` samples or `budget_s` seconds of
/// samples (at least 3) are taken; `f` must include its synchronisation.
///
/// # Errors
/// The first error of `f`.
pub fn time<E>(warmup: usize, repeats: usize, budget_s: f64, mut f: impl FnMut() -> Result<(), E>) -> Result<Stats, E> {
    for _ in 0..warmup {
        f()?;
    }
    let mut samples = Vec::with_capacity(repeats);
    let start = Instant::now();
    while samples.len() < repeats && (samples.len() < 3 || start.elapsed().as_secs_f64() < budget_s) {
        let t = Instant::now();
        f()?;
        samples.push(t.elapsed().as_secs_f64());
    }
    Ok(Stats::from_samples(samples))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_of_a_known_sample() {
        let s = Stats::from_samples(vec![4.0, 1.0, 3.0, 2.0, 5.0]);
        assert_eq!(s.median_s, 3.0);
        assert_eq!((s.min_s, s.max_s), (1.0, 5.0));
        // quartiles 2 and 4: IQR 2 over median 3
        assert!((s.rel_iqr - 2.0 / 3.0).abs() < 1e-15);
    }
}
