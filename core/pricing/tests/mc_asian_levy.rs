//! Arithmetic-average Asian Monte Carlo (geometric control variate) against the independent
//! Monte Carlo `reference_computed` of `shared/oracles/asian_levy_mc_avg_price.csv` (the
//! oracle README: an accurate engine should agree to about 1e-3), and a check that the control
//! variate really reduces the standard error.

mod common;

use common::{oracle, Row};
use tenor_pricing::mc::{self, AsianOption, FixingSchedule, McConfig, McProduct};

fn product(row: &Row) -> McProduct {
    let n = row.f("n_fixings") as u32;
    let schedule = FixingSchedule::equally_spaced(row.f("t_first"), row.f("t_length"), n);
    assert_eq!(schedule.fixings(), n, "line {}", row.line);
    let last = schedule.times().last().copied().expect("a fixing");
    assert!((last - row.f("t_expiry")).abs() < 1e-12, "line {}: last fixing {last}", row.line);
    McProduct::AsianArithmetic(AsianOption { vanilla: row.vanilla("t_expiry"), schedule })
}

#[test]
fn arithmetic_asian_matches_the_levy_reference() {
    let dev = tenor_cpu::cpu().expect("cpu");
    let cfg = McConfig { paths: 100_000, seed: 3, ..McConfig::default() };
    let rows: Vec<Row> =
        oracle("asian_levy_mc_avg_price.csv").into_iter().filter(|r| r.f("n_fixings") <= 100.0).collect();
    assert_eq!(rows.len(), 21);
    for row in &rows {
        let got = mc::price(&dev, &product(row), &cfg).expect("price");
        let (want, se_ref) = (row.f("reference_computed"), row.f("reference_computed_se"));
        let tol = 3.0 * (got.stderr * got.stderr + se_ref * se_ref).sqrt() + 1e-3;
        assert!(
            (got.price - want).abs() <= tol,
            "asian_levy_mc_avg_price.csv line {}: {} +/- {} vs {want} +/- {se_ref} (tol {tol})",
            row.line,
            got.price,
            got.stderr
        );
    }
}

#[test]
fn control_variate_reduces_the_standard_error() {
    let dev = tenor_cpu::cpu().expect("cpu");
    let rows = oracle("asian_levy_mc_avg_price.csv");
    let cfg = McConfig { paths: 40_000, seed: 5, ..McConfig::default() };
    for row in rows.iter().filter(|r| [12.0, 52.0].contains(&r.f("n_fixings"))) {
        let p = product(row);
        let with = mc::price(&dev, &p, &cfg).expect("with control variate");
        let without = mc::price(&dev, &p, &McConfig { control_variate: false, ..cfg }).expect("plain");
        assert!(without.stderr > 0.0);
        // Kemna and Vorst report variance reductions of two orders of magnitude; ask for 5x in
        // standard error.
        assert!(
            with.stderr * 5.0 < without.stderr,
            "line {}: stderr with {} vs without {}",
            row.line,
            with.stderr,
            without.stderr
        );
        // Same paths, two estimators of the same price: they agree within the plain error.
        assert!((with.price - without.price).abs() <= 3.0 * without.stderr, "line {}", row.line);
    }
}
