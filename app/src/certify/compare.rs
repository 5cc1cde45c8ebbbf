//! Deciding PROMOTE or REJECT: every value against its baseline by the baseline's rule, every
//! latency against the baseline's, and a class for each numeric difference.
//!
//! Classes. A difference that reordering the value's sums could explain is *reduction order*;
//! any other is *beyond* (a candidate bug until shown otherwise). The bound for a value reduced
//! from `n` summands in arithmetic with unit roundoff `u` is `2 lambda sqrt(n) u S`, twice (two
//! orders) Higham and Mary's probabilistic bound on a sum's rounding error with `lambda = 6`
//! (exceeded with probability below `2 exp(-lambda^2/2) ~ 3e-8` per value; "A new approach to
//! probabilistic rounding error analysis", SIAM J. Sci. Comput. 41, 2019), with `S`, the sum of
//! the summands' magnitudes, taken as the larger magnitude of the two values (exact for sums of
//! non-negative terms: payoffs, squares, bytes). Where a CPU reference value was computed
//! (compensated sums on the CPU backend), the report also says which side is nearer to it.

use serde::Serialize;

use super::format::{Baseline, FloorRow, LatencyRow, Rule, ValueRow, GREEKS};

/// Probabilistic bound's `lambda`.
const LAMBDA: f64 = 6.0;
/// A latency regression needs the candidate slower than the baseline by at least this much.
pub const LATENCY_FLOOR: f64 = 0.05;
/// Workloads whose baseline median is below this (seconds) are reported, not compared: at tens
/// of microseconds scheduling and clock changes move a median by more than any real regression.
pub const LATENCY_MIN_S: f64 = 1e-3;

/// One value that failed its rule (or, for `report` rows, differed).
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    /// Suite part.
    pub part: String,
    /// Row id (trade, output).
    pub id: String,
    /// `price` or a Greek.
    pub value: String,
    /// Baseline number.
    pub baseline: f64,
    /// Candidate number.
    pub candidate: f64,
    /// `|candidate - baseline|`.
    pub diff: f64,
    /// The rule as written in the baseline.
    pub rule: String,
    /// The largest difference the rule allows.
    pub allowed: f64,
    /// The reduction-order bound.
    pub reorder_bound: f64,
    /// `reduction order` or `beyond`.
    pub class: String,
    /// Which side is nearer to the CPU reference (`baseline`, `candidate`, or empty).
    pub nearer_reference: String,
    /// Whether it counts against promotion (`false` for `report` rows).
    pub counts: bool,
}

/// One workload's latency comparison.
#[derive(Debug, Clone, Serialize)]
pub struct LatencyCheck {
    /// Workload.
    pub workload: String,
    /// Baseline median, seconds.
    pub baseline_s: f64,
    /// Candidate median, seconds.
    pub candidate_s: f64,
    /// Candidate over baseline.
    pub ratio: f64,
    /// The slowdown allowed: `max(5 %, baseline IQR + candidate IQR)` (relative to the
    /// median): slower than that, the two runs' interquartile ranges no longer overlap.
    pub allowed: f64,
    /// Whether the baseline median is long enough to compare ([`LATENCY_MIN_S`]).
    pub compared: bool,
    /// Whether the candidate is slower than allowed.
    pub regression: bool,
}

/// The comparison's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// `PROMOTE` or `REJECT`.
    pub verdict: String,
    /// Values compared.
    pub compared: usize,
    /// Failures (and differing report-only rows).
    pub failures: Vec<Failure>,
    /// Latency per workload.
    pub latency: Vec<LatencyCheck>,
    /// Values of the baseline the candidate did not produce, or the other way round; feature
    /// floors that differ; workloads timed in one run only.
    pub missing: Vec<String>,
    /// Whether latency regressions reject (`tenor compare --latency check`, the default) or are
    /// only reported (`--latency report`, for a machine that is not quiet).
    pub latency_rejects: bool,
}

/// The reduction-order bound of a value with `terms` summands and unit roundoff `u`.
pub fn reorder_bound(a: f64, b: f64, terms: u64, u: f64) -> f64 {
    2.0 * LAMBDA * (terms.max(1) as f64).sqrt() * u * a.abs().max(b.abs())
}

/// The largest difference `rule` allows around `base`. Under `k=K` the standard error is the
/// smaller of the two runs' (neither side alone can widen the allowance).
fn allowed(rule: Rule, base: f64, stderr: Option<f64>) -> f64 {
    match rule {
        Rule::Bitwise => 0.0,
        Rule::Rel(t) => t * base.abs().max(f64::MIN_POSITIVE),
        Rule::KStderr(k) => k * stderr.unwrap_or(0.0),
        Rule::Report => f64::INFINITY,
    }
}

/// Whether `a` (baseline) and `b` (candidate) agree under `rule` with allowance `tol`. A value
/// that is not a finite number agrees only with the same kind of value (NaN with NaN, an
/// infinity with the same infinity): no tolerance reaches it (an infinite baseline price made
/// the allowance infinite and passed any candidate).
fn same(a: f64, b: f64, rule: Rule, tol: f64) -> bool {
    if !a.is_finite() || !b.is_finite() {
        return (a.is_nan() && b.is_nan()) || a == b;
    }
    match rule {
        Rule::Bitwise => a.to_bits() == b.to_bits(),
        _ => tol.is_finite() && (a - b).abs() <= tol,
    }
}

/// The smaller of two standard errors (either alone when the other is absent).
fn smaller(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

fn check_value(
    part: &str,
    base: &ValueRow,
    cand: &ValueRow,
    reference: Option<&ValueRow>,
    out: &mut Vec<Failure>,
) -> usize {
    let rule: Rule = base.compare.parse().unwrap_or(Rule::Bitwise);
    let greeks_rule: Rule = base.greeks_compare.parse().unwrap_or(Rule::Bitwise);
    let mut pairs = vec![("price".to_owned(), Some(base.price), Some(cand.price), reference.map(|r| r.price), rule)];
    for (i, g) in GREEKS.iter().enumerate() {
        pairs.push((
            (*g).to_owned(),
            base.greeks()[i],
            cand.greeks()[i],
            reference.and_then(|r| r.greeks()[i]),
            greeks_rule,
        ));
    }
    let mut n = 0;
    for (value, b, c, r, rule) in pairs {
        let (b, c) = match (b, c) {
            (None, None) => continue,
            (Some(b), Some(c)) => (b, c),
            (b, c) => (b.unwrap_or(f64::NAN), c.unwrap_or(f64::NAN)),
        };
        n += 1;
        let tol = allowed(rule, b, smaller(base.stderr, cand.stderr));
        let equal = a_bitwise(b, c);
        if (rule == Rule::Report && equal) || (rule != Rule::Report && same(b, c, rule, tol)) {
            continue;
        }
        let diff = (c - b).abs();
        let bound = reorder_bound(b, c, base.terms, base.precision.unit_roundoff());
        let class = if diff <= bound { "reduction order" } else { "beyond" };
        let nearer = match r {
            Some(r) if (c - r).abs() < (b - r).abs() => "candidate",
            Some(r) if (b - r).abs() < (c - r).abs() => "baseline",
            Some(_) => "equal",
            None => "",
        };
        out.push(Failure {
            part: part.into(),
            id: base.id.clone(),
            value,
            baseline: b,
            candidate: c,
            diff,
            rule: rule.to_string(),
            allowed: tol,
            reorder_bound: bound,
            class: class.into(),
            nearer_reference: nearer.into(),
            counts: rule != Rule::Report,
        });
    }
    n
}

fn a_bitwise(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits()
}

/// A latency check of one workload: a regression when the candidate is slower than allowed, or
/// when either median is not a number (a broken measurement never passes).
pub fn latency_check(b: &LatencyRow, c: &LatencyRow) -> LatencyCheck {
    let allowed = LATENCY_FLOOR.max(b.rel_iqr + c.rel_iqr);
    let ratio = c.median_s / b.median_s;
    let compared = b.median_s >= LATENCY_MIN_S || !b.median_s.is_finite();
    LatencyCheck {
        workload: b.workload.clone(),
        baseline_s: b.median_s,
        candidate_s: c.median_s,
        ratio,
        allowed,
        compared,
        regression: ratio.is_nan() || (compared && ratio > 1.0 + allowed),
    }
}

/// The feature floors of the two runs, compared: the same features with the same requirements,
/// none missing in the candidate, each with the baseline's status. One line per difference.
fn floor_differences(base: &[FloorRow], cand: &[FloorRow]) -> Vec<String> {
    let mut out = Vec::new();
    for b in base {
        match cand.iter().find(|c| c.feature == b.feature) {
            None => out.push(format!("floor {}: in the baseline only", b.feature)),
            Some(c) if c.required != b.required => out.push(format!(
                "floor {}: the baseline requires {:?}, the candidate {:?}",
                b.feature, b.required, c.required
            )),
            Some(c) if c.status != b.status || c.status == "missing" => out.push(format!(
                "floor {}: the baseline {} ({}), the candidate {} ({})",
                b.feature, b.status, b.found, c.status, c.found
            )),
            Some(_) => {}
        }
    }
    for c in cand.iter().filter(|c| !base.iter().any(|b| b.feature == c.feature)) {
        out.push(format!("floor {}: in the candidate only ({} {})", c.feature, c.status, c.found));
    }
    out
}

/// Refuses a baseline whose comparison rules differ from the suite's: the rules of a row (how
/// its price and Greeks are compared, its summand count and precision) come from the suite in
/// this Tenor's code, and a baseline edited to loosen them would turn any change into PROMOTE.
///
/// # Errors
/// The first row whose rules differ: its part, id and both sets of rules.
pub fn same_rules(base: &Baseline, cand: &Baseline) -> Result<(), String> {
    for (part, rows) in &base.values {
        let Some((_, crows)) = cand.values.iter().find(|(p, _)| p == part) else { continue };
        let index: std::collections::HashMap<&str, &ValueRow> = crows.iter().map(|r| (r.id.as_str(), r)).collect();
        for b in rows {
            let Some(c) = index.get(b.id.as_str()) else { continue };
            let rules =
                |r: &ValueRow| format!("{} / {} (terms {}, {:?})", r.compare, r.greeks_compare, r.terms, r.precision);
            let differ = b.compare.parse::<Rule>().ok() != c.compare.parse::<Rule>().ok()
                || b.greeks_compare.parse::<Rule>().ok() != c.greeks_compare.parse::<Rule>().ok()
                || b.terms != c.terms
                || b.precision != c.precision;
            if differ {
                return Err(format!(
                    "results/{part}.csv: row {:?}: the baseline's rules are {}, the suite's are {}; the rules \
                     belong to the suite, a baseline whose rules differ is refused",
                    b.id,
                    rules(b),
                    rules(c)
                ));
            }
        }
    }
    Ok(())
}

/// Compares `cand` with `base`; `reference` is the suite on the CPU backend (when the candidate
/// runs elsewhere), used to say which side of a difference is nearer to it.
/// `latency_rejects`: whether a latency regression alone rejects (see [`Outcome`]).
pub fn compare(base: &Baseline, cand: &Baseline, reference: Option<&Baseline>, latency_rejects: bool) -> Outcome {
    let mut failures = Vec::new();
    let mut missing = Vec::new();
    let mut compared = 0;
    for (part, rows) in &base.values {
        let Some((_, crow)) = cand.values.iter().find(|(p, _)| p == part) else {
            missing.push(format!("values {part}: every row (the candidate did not run it)"));
            continue;
        };
        let rref = reference.and_then(|r| r.values.iter().find(|(p, _)| p == part)).map(|(_, v)| v);
        let index: std::collections::HashMap<&str, &ValueRow> = crow.iter().map(|r| (r.id.as_str(), r)).collect();
        for b in rows {
            match index.get(b.id.as_str()) {
                Some(c) => {
                    let r = rref.and_then(|v| v.iter().find(|x| x.id == b.id));
                    compared += check_value(part, b, c, r, &mut failures);
                }
                None => missing.push(format!("value {part}: {} (in the baseline only)", b.id)),
            }
        }
        let ids: std::collections::HashSet<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        missing.extend(
            crow.iter()
                .filter(|c| !ids.contains(c.id.as_str()))
                .map(|c| format!("value {part}: {} (in the candidate only)", c.id)),
        );
    }
    let latency: Vec<LatencyCheck> = base
        .latency
        .iter()
        .filter_map(|b| cand.latency.iter().find(|c| c.workload == b.workload).map(|c| latency_check(b, c)))
        .collect();
    // Latencies compare both ways: a workload timed in one run only (a latency.csv cut to its
    // header compared nothing) is a gap, which rejects under `--latency check`.
    let mut latency_gaps: Vec<String> = base
        .latency
        .iter()
        .filter(|b| !cand.latency.iter().any(|c| c.workload == b.workload))
        .map(|b| format!("latency {}: in the baseline only", b.workload))
        .collect();
    latency_gaps.extend(
        cand.latency
            .iter()
            .filter(|c| !base.latency.iter().any(|b| b.workload == c.workload))
            .map(|c| format!("latency {}: in the candidate only", c.workload)),
    );
    let floors = floor_differences(&base.floors, &cand.floors);
    let slow = latency_rejects && (latency.iter().any(|l| l.regression) || !latency_gaps.is_empty());
    let reject = failures.iter().any(|f| f.counts) || slow || !missing.is_empty() || !floors.is_empty();
    missing.extend(floors);
    missing.extend(latency_gaps);
    Outcome {
        verdict: if reject { "REJECT" } else { "PROMOTE" }.into(),
        compared,
        failures,
        latency,
        missing,
        latency_rejects,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certify::format::Precision;

    fn lat(m: f64, iqr: f64) -> LatencyRow {
        LatencyRow { workload: "w".into(), median_s: m, rel_iqr: iqr, repeats: 5 }
    }

    use crate::certify::format::tests::sample;

    fn row<'a>(b: &'a mut Baseline, id: &str) -> &'a mut ValueRow {
        b.values[0].1.iter_mut().find(|r| r.id == id).expect("row")
    }

    /// A baseline value that is not a number passes nothing: an infinite price allowed any
    /// candidate (`rel` of infinity), and so did an infinite standard error under `k`.
    #[test]
    fn a_non_finite_baseline_value_never_promotes() {
        let cand = sample();
        assert_eq!(compare(&sample(), &cand, None, true).verdict, "PROMOTE");
        for (id, set) in [("a", 0), ("a", 1), ("b", 2)] {
            let mut base = sample();
            let r = row(&mut base, id);
            match set {
                0 => r.price = f64::INFINITY,
                1 => r.price = f64::NAN,
                _ => r.stderr = Some(f64::INFINITY),
            }
            let mut moved = sample();
            row(&mut moved, id).price += 1.0;
            assert_eq!(compare(&base, &moved, None, true).verdict, "REJECT", "{id} case {set}");
        }
    }

    /// Latencies compare both ways: a baseline whose `latency.csv` was cut to its header compared
    /// nothing and promoted under `--latency check`; a NaN median could never regress.
    #[test]
    fn latencies_missing_or_not_a_number_do_not_promote() {
        let mut base = sample();
        base.latency.clear();
        let o = compare(&base, &sample(), None, true);
        assert_eq!(o.verdict, "REJECT", "{:?}", o.missing);
        assert!(o.missing.iter().any(|m| m.contains("latency") && m.contains("book")), "{:?}", o.missing);
        assert_eq!(compare(&base, &sample(), None, false).verdict, "PROMOTE", "only reported under --latency report");
        let mut cand = sample();
        cand.latency[0].median_s = f64::NAN;
        assert_eq!(compare(&sample(), &cand, None, true).verdict, "REJECT");
        let mut base = sample();
        base.latency[0].median_s = f64::NAN;
        assert!(latency_check(&base.latency[0], &sample().latency[0]).regression, "a NaN baseline median regresses");
    }

    /// The feature floors are compared: a floor the baseline met and the candidate does not
    /// rejects, naming it.
    #[test]
    fn a_floor_the_candidate_misses_rejects() {
        let mut cand = sample();
        cand.floors[0].status = "missing".into();
        cand.floors[0].found = "no".into();
        let o = compare(&sample(), &cand, None, true);
        assert_eq!(o.verdict, "REJECT");
        assert!(o.missing.iter().any(|m| m.contains("fp64")), "{:?}", o.missing);
        let mut cand = sample();
        cand.floors.push(FloorRow {
            feature: "new".into(),
            required: "x".into(),
            found: "x".into(),
            status: "ok".into(),
        });
        assert_eq!(compare(&sample(), &cand, None, true).verdict, "REJECT", "a floor the baseline lacks");
    }

    /// The suite's rules are compared row by row, and a difference names the row and both.
    #[test]
    fn rules_that_differ_from_the_suites_are_named() {
        assert_eq!(same_rules(&sample(), &sample()), Ok(()));
        let mut base = sample();
        row(&mut base, "a").compare = "rel=1e0".into();
        let e = same_rules(&base, &sample()).expect_err("a loosened rule");
        assert!(
            e.contains("results/book.csv") && e.contains("\"a\"") && e.contains("rel=1e0") && e.contains("rel=1e-12"),
            "{e}"
        );
        let mut base = sample();
        row(&mut base, "b").terms = 1;
        assert!(same_rules(&base, &sample()).is_err(), "the summand count is the suite's too");
    }

    #[test]
    fn latency_allows_the_larger_of_five_percent_and_the_spreads() {
        assert!(!latency_check(&lat(1.0, 0.01), &lat(1.04, 0.01)).regression);
        assert!(latency_check(&lat(1.0, 0.01), &lat(1.06, 0.01)).regression);
        // A noisy candidate (20 % IQR) with a 1 % baseline IQR is allowed 21 %.
        assert!(!latency_check(&lat(1.0, 0.01), &lat(1.20, 0.2)).regression);
        assert!(latency_check(&lat(1.0, 0.01), &lat(1.22, 0.2)).regression);
        // Below a millisecond: reported, never a regression.
        let short = latency_check(&lat(1e-4, 0.01), &lat(1e-3, 0.01));
        assert!(!short.compared && !short.regression);
    }

    #[test]
    fn a_one_ulp_difference_of_a_long_sum_is_reduction_order_and_a_part_per_million_is_not() {
        let row = |p: f64| ValueRow::plain("x", p, Rule::Bitwise, 1 << 16, Precision::F64);
        let mut out = Vec::new();
        let b = 123.456;
        check_value("k", &row(b), &row(f64::from_bits(b.to_bits() + 1)), None, &mut out);
        check_value("k", &row(b), &row(b * (1.0 + 1e-6)), None, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].class, "reduction order");
        assert_eq!(out[1].class, "beyond");
    }
}
