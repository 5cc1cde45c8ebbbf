//! Monte Carlo prices against published closed-form values (`shared/oracles/`): within three
//! standard errors, plus half a unit of the last published digit where the table is rounded.
//! And the geometric-Asian closed forms against `asian_geometric.csv` to its tolerances.

mod common;

use common::oracle;
use tenor_pricing::analytic::asian::GeometricAsian;
use tenor_pricing::mc::{self, AsianOption, BarrierOption, FixingSchedule, McConfig, McProduct, Monitoring};

fn cpu() -> tenor_cpu::CpuCompute {
    tenor_cpu::cpu().expect("cpu backend")
}

fn check(label: &str, got: mc::McPrice, want: f64, slack: f64) {
    let tol = 3.0 * got.stderr + slack;
    assert!(
        (got.price - want).abs() <= tol,
        "{label}: MC {} +/- {} vs published {want} (|diff| {} > {tol})",
        got.price,
        got.stderr,
        (got.price - want).abs()
    );
}

#[test]
fn european_mc_within_three_standard_errors_of_haug() {
    let dev = cpu();
    let cfg = McConfig { paths: 400_000, seed: 2026, ..McConfig::default() };
    let rows = oracle("european_haug.csv");
    // A selection across the table: the pp. 2-8 examples (futures, FX) and the p. 24 grid.
    for row in rows.iter().step_by(3) {
        let got = mc::price(&dev, &McProduct::European(row.vanilla("t")), &cfg).expect("price");
        assert!(got.stderr > 0.0 || row.f("expected") < 1e-3, "line {}: zero standard error", row.line);
        check(&format!("european_haug.csv line {}", row.line), got, row.f("expected"), 0.5e-4);
    }
}

#[test]
fn barrier_mc_within_three_standard_errors_of_haug() {
    let dev = cpu();
    let cfg = McConfig { paths: 200_000, seed: 7, steps: 64, ..McConfig::default() };
    let rows = oracle("barrier_haug.csv");
    let mut kinds = std::collections::BTreeSet::new();
    let (mut simulated, mut on_host) = (0, 0);
    // Every 5th row: all four barrier types, calls and puts, the rebate, and H = S rows (a
    // knock-out there is its rebate, valued on the host; a knock-in the simulated European).
    for row in rows.iter().step_by(5) {
        let b = BarrierOption {
            vanilla: row.vanilla("t"),
            barrier_type: row.barrier_type(),
            barrier: row.f("barrier"),
            rebate: row.f("rebate"),
            monitoring: Monitoring::Continuous,
        };
        kinds.insert(row.str("barrier_type").to_owned());
        let got = mc::price(&dev, &McProduct::Barrier(b), &cfg).expect("price");
        simulated += usize::from(got.paths > 0);
        on_host += usize::from(got.paths == 0);
        check(&format!("barrier_haug.csv line {}", row.line), got, row.f("expected"), 0.5e-4);
    }
    assert_eq!(kinds.len(), 4, "selection covers {kinds:?}");
    assert!(simulated >= 8, "only {simulated} rows were simulated");
    assert!(on_host >= 1, "no knocked-out row valued on the host");
}

fn geometric(row: &common::Row) -> GeometricAsian {
    GeometricAsian {
        option: row.option(),
        spot: row.f("spot"),
        strike: if row.str("strike").is_empty() { f64::NAN } else { row.f("strike") },
        rate: row.f("r"),
        dividend: row.f("q"),
        vol: row.f("v"),
        expiry: row.f("t"),
    }
}

fn times(row: &common::Row) -> Vec<f64> {
    row.str("fixing_times").split(';').filter(|s| !s.is_empty()).map(|s| s.parse().expect("time")).collect()
}

#[test]
fn geometric_asian_closed_forms_match_the_table() {
    let rows = oracle("asian_geometric.csv");
    assert_eq!(rows.len(), 3);
    for row in &rows {
        let g = geometric(row);
        let got = match (row.str("averaging"), row.str("payoff")) {
            ("continuous", "average_price") => g.average_price_continuous(),
            ("discrete", "average_price") => g.average_price(&times(row)),
            ("discrete", "average_strike") => g.average_strike(&times(row)),
            other => panic!("line {}: {other:?}", row.line),
        }
        .expect("valid inputs");
        let (want, tol) = (row.f("expected"), row.f("tolerance"));
        assert!((got - want).abs() <= tol, "asian_geometric.csv line {}: {got} vs {want} (tol {tol})", row.line);
    }
}

#[test]
fn geometric_asian_mc_within_three_standard_errors() {
    let dev = cpu();
    let cfg = McConfig { paths: 200_000, seed: 11, ..McConfig::default() };
    let rows = oracle("asian_geometric.csv");

    // Row 2: 10 fixings at 0.1..1.0, exactly the spec's uniform schedule.
    let row = &rows[1];
    let (published, ours) = (times(row), FixingSchedule::uniform(1.0, 10).times());
    assert!(published.len() == ours.len() && published.iter().zip(&ours).all(|(a, b)| (a - b).abs() < 1e-12));
    let a = AsianOption { vanilla: row.vanilla("t"), schedule: FixingSchedule::uniform(1.0, 10) };
    let got = mc::price(&dev, &McProduct::AsianGeometric(a), &cfg).expect("price");
    check("asian_geometric.csv row 2", got, row.f("expected"), 0.0);

    // Row 1: continuous averaging, simulated with n = 400 fixings; the tolerance adds the
    // discretisation gap |discrete(n) - continuous| of the closed forms.
    let row = &rows[0];
    let n = 400;
    let a = AsianOption { vanilla: row.vanilla("t"), schedule: FixingSchedule::uniform(row.f("t"), n) };
    let g = geometric(row);
    let gap =
        (g.average_price(&a.schedule.times()).expect("valid") - g.average_price_continuous().expect("valid")).abs();
    assert!(gap < 0.01, "discretisation gap {gap}");
    let got = mc::price(&dev, &McProduct::AsianGeometric(a), &McConfig { paths: 40_000, ..cfg }).expect("price");
    check("asian_geometric.csv row 1 (400 fixings)", got, row.f("expected"), gap + 0.5e-4);
}
