//! The basket job against peer computations in the pinned Python environment
//! (`scripts/basket-venv`: QuantLib 1.44 and numpy; `scripts/basket_reference.py`), each within
//! 4 combined standard errors plus a stated allowance:
//!
//! * the American basket at `xi -> 0` (two geometric Brownian motions) against QuantLib's
//!   `MCAmericanBasketEngine`;
//! * a European basket of three correlated Heston assets with a full 2N x 2N factor correlation
//!   against a fine-grid full-truncation Euler simulation in numpy (price, deltas, vegas,
//!   correlation vegas, rho, theta).
//!
//! Ignored by default (they need the environment): `scripts/test` runs them with
//! `TENOR_BASKET_PYTHON=$(scripts/basket-venv)/bin/python cargo test -p tenor-pricing --test
//! basket_peers -- --ignored`; without the variable they fail, naming it.

use std::path::PathBuf;
use std::process::Command;

use tenor_pricing::basket::{price_basket, BasketJob, BasketOutcome};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// Runs `scripts/basket_reference.py` with `args` and returns its lines split in words.
fn reference(args: &[&str]) -> Vec<Vec<String>> {
    let python = std::env::var("TENOR_BASKET_PYTHON").unwrap_or_else(|_| {
        panic!("TENOR_BASKET_PYTHON is not set: run scripts/basket-venv and point it at its bin/python")
    });
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/basket_reference.py");
    let out = Command::new(&python).arg(&script).args(args).output().unwrap_or_else(|e| panic!("{python}: {e}"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(|l| l.split_whitespace().map(str::to_owned).collect()).collect()
}

fn ours(name: &str, greeks: bool) -> BasketOutcome {
    let text = std::fs::read_to_string(data(name)).expect("test job");
    let job = BasketJob::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let dev = tenor_cpu::cpu().expect("cpu backend");
    price_basket(&dev, &job, greeks).unwrap_or_else(|e| panic!("{e}"))
}

fn index(word: &str) -> Option<usize> {
    (word != "-").then(|| word.parse().expect("an asset index"))
}

/// Longstaff-Schwartz out of sample is low-biased by its exercise policy; the two policies
/// differ (QuantLib regresses on polynomials of degree 3 in both prices, Tenor on the basket and
/// its variance feature), so the prices may differ by that much beyond the noise: 1 % of the
/// price, the size of the policy differences measured in ADR 0031's basis table.
#[test]
#[ignore = "needs scripts/basket-venv (TENOR_BASKET_PYTHON); scripts/test runs it"]
fn american_basket_against_quantlib() {
    let out = ours("basket_ql_american.toml", false);
    let job = data("basket_ql_american.toml");
    let lines = reference(&["quantlib", job.to_str().expect("utf-8 path"), "40000", "16384", "7"]);
    let ql = lines.iter().find(|l| l[0] == "price").expect("a price line");
    let (q, qse): (f64, f64) = (ql[1].parse().expect("value"), ql[2].parse().expect("stderr"));
    let (p, pse) = (out.rows[0].value, out.rows[0].stderr.expect("stderr"));
    let tol = 4.0 * (pse * pse + qse * qse).sqrt() + 0.01 * q;
    eprintln!("Tenor {p} +/- {pse}, QuantLib {q} +/- {qse}");
    assert!((p - q).abs() <= tol, "Tenor {p} +/- {pse} against QuantLib {q} +/- {qse} (tolerance {tol})");
}

/// The Euler scheme's bias at 100 steps a year (first order in the step for full truncation)
/// is given 2 % of each value; QE's at 50 steps is smaller (Andersen 2008).
#[test]
#[ignore = "needs scripts/basket-venv (TENOR_BASKET_PYTHON); scripts/test runs it"]
fn correlated_heston_basket_against_euler() {
    let out = ours("basket_euler.toml", true);
    let job = data("basket_euler.toml");
    let lines = reference(&["euler", job.to_str().expect("utf-8 path"), "20000", "100", "5"]);
    assert_eq!(lines.len(), 12, "price, 3 deltas, 3 vegas, 3 correlation vegas, rho, theta");
    for l in &lines {
        let (greek, a, b) = (l[0].as_str(), index(&l[1]), index(&l[2]));
        let (e, ese): (f64, f64) = (l[3].parse().expect("value"), l[4].parse().expect("stderr"));
        let row = out
            .rows
            .iter()
            .find(|r| r.greek == greek && r.asset == a && r.other == b)
            .unwrap_or_else(|| panic!("no row {greek} {a:?} {b:?}"));
        let (v, se) = (row.value, row.stderr.expect("stderr"));
        let tol = 4.0 * (se * se + ese * ese).sqrt() + 0.02 * e.abs();
        eprintln!("{greek:18} {a:?} {b:?}: Tenor {v:.6} +/- {se:.6}, Euler {e:.6} +/- {ese:.6}");
        assert!(
            (v - e).abs() <= tol,
            "{greek} {a:?} {b:?}: Tenor {v} +/- {se} against Euler {e} +/- {ese} (tolerance {tol})"
        );
    }
}
