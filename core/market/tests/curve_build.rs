//! The `curve_build` kernel (CPU reference, through the Compute port) against
//! `DiscountCurve::bootstrap_par` on real Treasury par curves, a flat-curve closed form, and
//! repricing of the input instruments.
use std::collections::BTreeMap;

use tenor_kernels::typed::CurveBuild;
use tenor_market::curve::DiscountCurve;
use tenor_market::treasury::{load_treasury, ParYieldRow};
use tenor_ports::{Compute, ComputeExt};

/// Treasury CMT tenors (years) of the 1990-2023 archive.
const CMT: [f64; 13] = [1. / 12., 2. / 12., 3. / 12., 4. / 12., 0.5, 1., 2., 3., 5., 7., 10., 20., 30.];

/// Runs `curve_build` on the CPU backend: `par` is curve-by-curve (`n` rows of `tenors.len()`),
/// transposed here to the kernel's tenor-major layout; returns `ln D` curve-by-curve.
fn kernel(tenors: &[f64], par: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let dev = tenor_cpu::cpu().expect("cpu backend");
    let s = dev.default_stream().clone();
    let (m, n) = (tenors.len(), par.len());
    let mut major = vec![0.0; m * n];
    for (c, row) in par.iter().enumerate() {
        assert_eq!(row.len(), m);
        for (k, y) in row.iter().enumerate() {
            major[k * n + c] = *y;
        }
    }
    let p = dev.upload_slice(&s, &major).expect("upload");
    let t = dev.upload_slice(&s, tenors).expect("upload");
    let out = dev.alloc_elems::<f64>(&s, m * n).expect("alloc");
    CurveBuild { par: &p, tenors: &t, log_df: &out, n: n as u64, m: m as u32 }.launch(&dev, &s).expect("launch");
    let got: Vec<f64> = dev.download_vec(&s, &out).expect("download");
    (0..n).map(|c| (0..m).map(|k| got[k * n + c]).collect()).collect()
}

/// About three dozen real curves: every 250th day of 1990-2023 (before and after the 20y and
/// 30y gaps, the 2008 and 2020 near-zero bills), plus 2024 and 2025 days.
fn sample_rows() -> Vec<ParYieldRow> {
    let mut rows = Vec::new();
    for (file, every) in [
        ("data/rates/us_treasury_par_yield_1990_2023.csv", 250),
        ("data/rates/us_treasury_par_yield_2024.csv", 60),
        ("data/rates/us_treasury_par_yield_2025_h1.csv", 40),
    ] {
        let table = load_treasury(&tenor_testdata::shared(file)).expect("treasury file");
        rows.extend(table.rows.iter().step_by(every).filter(|r| !r.points.is_empty()).cloned());
    }
    assert!(rows.len() >= 36, "{} rows", rows.len());
    rows
}

fn close(got: f64, want: f64, rtol: f64) -> bool {
    got == want || (got - want).abs() <= rtol * want.abs()
}

/// Tenors of a grid and the par yields of its curves.
type Grid = (Vec<f64>, Vec<Vec<f64>>);

#[test]
fn cpu_kernel_matches_bootstrap_par_on_treasury_curves() {
    // Rows grouped by their published tenors: one launch per grid, curves of a grid batched.
    let mut groups: BTreeMap<Vec<u64>, Grid> = BTreeMap::new();
    for row in sample_rows() {
        let tenors: Vec<f64> = row.points.iter().map(|p| p.0).collect();
        let g = groups.entry(tenors.iter().map(|t| t.to_bits()).collect()).or_insert((tenors, vec![]));
        g.1.push(row.points.iter().map(|p| p.1).collect());
    }
    assert!(groups.len() >= 3, "several tenor grids");
    assert!(groups.values().any(|g| g.1.len() >= 10), "a batch of many curves");
    let mut checked = 0;
    for (tenors, par) in groups.values() {
        for (curve, got) in par.iter().zip(kernel(tenors, par)) {
            let points: Vec<(f64, f64)> = tenors.iter().copied().zip(curve.iter().copied()).collect();
            let want = DiscountCurve::bootstrap_par(&points).expect("bootstraps");
            for (k, &t) in tenors.iter().enumerate() {
                let w = want.log_discount(t);
                assert!(close(got[k], w, 1e-12), "{points:?}: tenor {t}: kernel {} vs bootstrap_par {w}", got[k]);
                checked += 1;
            }
        }
    }
    assert!(checked > 400, "{checked} values");
}

#[test]
fn flat_par_curve_is_the_semiannual_closed_form() {
    // Every par yield y: bills by definition and par bonds at whole half-years both give
    // D(T) = (1 + y/2)^(-2T) (a par bond discounted at its own yield prices to 1), so
    // ln D(T) = -2T ln(1 + y/2) at every CMT tenor (ln_1p: 1 + y/2 itself would round).
    let ys = [0.0, 0.0001, 0.02, 0.05, 0.12, -0.004];
    let par: Vec<Vec<f64>> = ys.iter().map(|&y| vec![y; CMT.len()]).collect();
    for (y, got) in ys.iter().zip(kernel(&CMT, &par)) {
        for (k, &t) in CMT.iter().enumerate() {
            let want = -2.0 * t * (y / 2.0f64).ln_1p();
            assert!(close(got[k], want, 1e-12), "y {y} tenor {t}: {} vs {want}", got[k]);
        }
    }
}

#[test]
fn every_input_instrument_reprices() {
    // Real curves on the full CMT grid, and those curves shifted (+/- 300 bp) and twisted.
    let rows: Vec<Vec<f64>> = sample_rows()
        .into_iter()
        .filter(|r| r.points.len() == CMT.len() && r.points.iter().zip(&CMT).all(|(p, t)| p.0 == *t))
        .map(|r| r.points.iter().map(|p| p.1).collect())
        .collect();
    assert!(rows.len() >= 5, "{} full-grid rows", rows.len());
    let mut par = rows.clone();
    for r in &rows {
        for (shift, twist) in [(0.03, 0.0), (-0.03, 0.0), (0.0, 0.02), (0.01, -0.02)] {
            par.push(r.iter().zip(&CMT).map(|(y, t)| (y + shift + twist * (t / 30.0 - 0.5)).max(-0.01)).collect());
        }
    }
    for (curve, got) in par.iter().zip(kernel(&CMT, &par)) {
        let nodes: Vec<(f64, f64)> = CMT.iter().zip(&got).map(|(t, l)| (*t, l.exp())).collect();
        let built = DiscountCurve::from_nodes(&nodes).expect("valid curve");
        for (&t, &y) in CMT.iter().zip(curve) {
            if t <= 1.0 {
                let want = (1.0 + y / 2.0).powf(-2.0 * t);
                assert!((built.discount(t) - want).abs() < 1e-12, "bill {t} at {y}: {} vs {want}", built.discount(t));
            } else {
                let p = built.bond_price(t, y);
                assert!((p - 1.0).abs() < 1e-12, "par bond {t}y at {y}: price {p}");
            }
        }
    }
}
