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

/// Two ways of doing the same work timed in interleaved pairs (see [`time_pairs`]).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Paired {
    /// Timings of the first way (`a`).
    pub a: Stats,
    /// Timings of the second way (`b`).
    pub b: Stats,
    /// Median over pairs of `a - b`, seconds (negative when `a` is faster).
    pub diff_median_s: f64,
    /// First quartile of the per-pair differences, seconds.
    pub diff_q1_s: f64,
    /// Third quartile of the per-pair differences, seconds.
    pub diff_q3_s: f64,
    /// Pairs timed.
    pub pairs: usize,
}

impl Paired {
    /// Summarises per-pair samples: `a[i]` and `b[i]` were taken next to each other.
    ///
    /// The statistic is the median of the per-pair differences, not the difference of the two
    /// medians: a slow drift of the machine (clock, load, thermal state) shifts both members of
    /// a pair alike and cancels in their difference (a paired comparison; Wilcoxon's signed-rank
    /// setting, Hollander and Wolfe, *Nonparametric Statistical Methods*, ch. 3). Extra samples
    /// on either side, past the shorter length, are ignored.
    pub fn from_pairs(a: Vec<f64>, b: Vec<f64>) -> Self {
        let n = a.len().min(b.len());
        let mut d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
        d.sort_by(f64::total_cmp);
        Self {
            diff_median_s: quantile(&d, 0.5),
            diff_q1_s: quantile(&d, 0.25),
            diff_q3_s: quantile(&d, 0.75),
            a: Stats::from_samples(a[..n].to_vec()),
            b: Stats::from_samples(b[..n].to_vec()),
            pairs: n,
        }
    }
}

/// Times `a` and `b` interleaved: after `warmup` untimed rounds of each, pairs are taken until
/// `max_pairs` or `budget_s` seconds (at least `min_pairs`), the order inside a pair alternating
/// (a b, b a, a b, ...) so that neither way always runs first. Each call must include its
/// synchronisation.
///
/// Timing the two ways in two sequential blocks lets order effects (the first block warms
/// caches and clocks for the second) and drift over the run show up as a difference; pairing
/// and alternating removes both from the median of the per-pair differences.
///
/// # Errors
/// The first error of `a` or `b`.
pub fn time_pairs<E>(
    warmup: usize,
    min_pairs: usize,
    max_pairs: usize,
    budget_s: f64,
    mut a: impl FnMut() -> Result<(), E>,
    mut b: impl FnMut() -> Result<(), E>,
) -> Result<Paired, E> {
    for _ in 0..warmup {
        a()?;
        b()?;
    }
    let mut ta = Vec::with_capacity(max_pairs);
    let mut tb = Vec::with_capacity(max_pairs);
    let start = Instant::now();
    while ta.len() < max_pairs.max(min_pairs) && (ta.len() < min_pairs || start.elapsed().as_secs_f64() < budget_s) {
        let one = |f: &mut dyn FnMut() -> Result<(), E>| -> Result<f64, E> {
            let t = Instant::now();
            f()?;
            Ok(t.elapsed().as_secs_f64())
        };
        let (x, y) = if ta.len() % 2 == 0 {
            let x = one(&mut a)?;
            (x, one(&mut b)?)
        } else {
            let y = one(&mut b)?;
            (one(&mut a)?, y)
        };
        ta.push(x);
        tb.push(y);
    }
    Ok(Paired::from_pairs(ta, tb))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paired_difference_cancels_drift_that_sequential_medians_do_not() {
        // Way b costs 10 + drift, way a costs 10 + drift + 1: a steady 1 more per call. The drift
        // grows by 4 per pair (a machine slowing down). Sequential blocks (all a, then all b)
        // would see b's median 4 * 5 = 20 later in the drift and call a 19 faster; the paired
        // median difference is exactly 1.
        let drift = |i: usize| 4.0 * i as f64;
        let a: Vec<f64> = (0..5).map(|i| 11.0 + drift(i)).collect();
        let b: Vec<f64> = (0..5).map(|i| 10.0 + drift(i)).collect();
        let p = Paired::from_pairs(a, b);
        assert_eq!(p.diff_median_s, 1.0);
        assert_eq!((p.diff_q1_s, p.diff_q3_s), (1.0, 1.0));
        assert_eq!(p.pairs, 5);
        assert_eq!((p.a.median_s, p.b.median_s), (19.0, 18.0));
        let seq_a: Vec<f64> = (0..5).map(|i| 11.0 + drift(i)).collect();
        let seq_b: Vec<f64> = (5..10).map(|i| 10.0 + drift(i)).collect();
        assert_eq!(Stats::from_samples(seq_a).median_s - Stats::from_samples(seq_b).median_s, -19.0);
    }

    #[test]
    fn pairs_alternate_order_and_respect_counts() {
        let order = std::cell::RefCell::new(String::new());
        let p = time_pairs(
            1,
            4,
            4,
            10.0,
            || -> Result<(), ()> {
                order.borrow_mut().push('a');
                Ok(())
            },
            || {
                order.borrow_mut().push('b');
                Ok(())
            },
        )
        .expect("no error");
        assert_eq!(p.pairs, 4);
        assert_eq!((p.a.repeats, p.b.repeats), (4, 4));
        // warm-up "ab", then pairs ab, ba, ab, ba
        assert_eq!(order.into_inner(), "ababbaabba");
    }

    #[test]
    fn quantiles_of_a_known_sample() {
        let s = Stats::from_samples(vec![4.0, 1.0, 3.0, 2.0, 5.0]);
        assert_eq!(s.median_s, 3.0);
        assert_eq!((s.min_s, s.max_s), (1.0, 5.0));
        // quartiles 2 and 4: IQR 2 over median 3
        assert!((s.rel_iqr - 2.0 / 3.0).abs() < 1e-15);
    }
}
