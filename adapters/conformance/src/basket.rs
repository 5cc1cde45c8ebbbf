//! Checks of the STAC-A2 basket's kernels (`basket_*`, `tenor_kernels::basket`) against the CPU
//! reference, on a three-asset fixture whose paths take both QE branches and both K0 branches:
//! asset 0 is a plain equity (psi under 1.5), asset 1 has xi = 1.5 at v0 = 0.01 (psi far above
//! 1.5: the exponential branch, zero variances), asset 2 has rho = 0.9 at xi = 0.1 (Andersen's
//! martingale correction undefined: K0 without it).
//!
//! Tolerances: the per-path values of `basket_paths`, `basket_backward`, `basket_value` and
//! `basket_moments` within [`FP64_RTOL`] (each backend's `exp`, `log`, `sqrt`, `erfc`, `sin`
//! and `cos` differ from the CPU's by an ulp or so, and the block sums of `basket_backward` are
//! in the device's reduction order); `basket_sens`'s rows within [`SENS_RTOL`]: they are
//! differences of bumped and base paths divided by a bump of 1e-5 relative, so the paths'
//! last-ulp differences (about 1e-16 relative per operation over the steps) come out 1e5 times
//! larger; `basket_solve` within [`FP64_RTOL`], its never-exercise `+inf` equal.
//!
//! Each check also has a reference of its own, so that on the CPU (the reference of the other
//! backends) it still tests something (ADR 0034): the forward basket (`basket_paths`), the payoffs
//! and counts of the expiry date by hand (`basket_backward`), Gaussian elimination
//! (`basket_solve`), the closed-form value and theta of a put that is never exercised early
//! (`basket_value`, `basket_sens`) and sums added in path order (`basket_moments`).

use tenor_kernels::basket::{lane_items, record, sens_rows, slot, value_rows, BUMPS, RECORD};
use tenor_ports::Compute;

use crate::kernels::{against_cpu, launch_outputs, KArg};
use crate::reference::Estimate;
use crate::{max_rel_diff, FP64_RTOL};

/// Relative tolerance of `basket_sens`'s rows against the CPU reference (see the module).
pub const SENS_RTOL: f64 = 1e-8;

const SEED: u64 = 0x5EED_0000_2026_0027;
const PATHS: u64 = 1001;
const STEPS: u32 = 13;
const N: usize = 3;
const STRIKE: f64 = 100.0;
const RATE: f64 = 0.03;
const MATURITY: f64 = 1.0;
const NBASIS: u32 = 6;

fn dt() -> f64 {
    MATURITY / f64::from(STEPS)
}

/// (spot, weight, dividend, v0, kappa, theta, xi, rho) of the fixture's assets.
const ASSETS: [[f64; 8]; N] = [
    [100.0, 0.4, 0.01, 0.04, 1.5, 0.04, 0.4, -0.7],
    [90.0, 0.3, 0.0, 0.01, 1.0, 0.02, 1.5, -0.3],
    [110.0, 0.3, 0.02, 0.09, 2.0, 0.09, 0.1, 0.9],
];

fn records(dt: f64) -> Vec<f64> {
    records_of(&ASSETS, dt)
}

fn records_of(assets: &[[f64; 8]], dt: f64) -> Vec<f64> {
    assets.iter().flat_map(|a| record(a[0], a[1], RATE - a[2], a[3], a[4], a[5], a[6], a[7], dt)).collect()
}

/// Bumped records as `tenor_pricing::basket::Model` makes them (relative bumps of 1e-5 of
/// sqrt(v0), kappa, theta, xi and the maturity).
fn bumped() -> Vec<f64> {
    bumped_of(&ASSETS)
}

fn bumped_of(assets: &[[f64; 8]]) -> Vec<f64> {
    let h = 1e-5;
    let dtb = MATURITY * (1.0 + h) / f64::from(STEPS);
    let mut out = Vec::new();
    for a in assets.iter().copied() {
        let r = |v0: f64, k: f64, t: f64, x: f64, dt: f64| record(a[0], a[1], RATE - a[2], v0, k, t, x, a[7], dt);
        let sd = a[3].sqrt();
        let list = [
            (r((sd * (1.0 + h)).powi(2), a[4], a[5], a[6], dt()), h * sd),
            (r(a[3], a[4] * (1.0 + h), a[5], a[6], dt()), h * a[4]),
            (r(a[3], a[4], a[5] * (1.0 + h), a[6], dt()), h * a[5]),
            (r(a[3], a[4], a[5], a[6] * (1.0 + h), dt()), h * a[6]),
            (r(a[3], a[4], a[5], a[6], dtb), h * MATURITY),
        ];
        for (mut rec, size) in list {
            rec[slot::BUMP] = size;
            out.extend_from_slice(&rec);
        }
    }
    debug_assert_eq!(out.len(), assets.len() * BUMPS * RECORD);
    out
}

/// The known-answer fixture of the checks' own references (the CPU is never its own reference:
/// ADR 0034): assets 0 and 1 of [`ASSETS`] (both with Andersen's martingale correction, so
/// `E[S_i(t)] = S_i(0) e^{(r - q_i) t}` exactly at every date of the grid), independent factors
/// (the identity), a put struck at [`KA_STRIKE`], far above any basket, under a rule that never
/// exercises before expiry: every path is exercised at maturity and its value is
/// `e^{-rT} (K - B_T)`, whose expectation is known in closed form.
mod known {
    use super::{ASSETS, MATURITY, RATE, STEPS};

    pub const ASSETS_KA: [[f64; 8]; 2] = [ASSETS[0], ASSETS[1]];
    pub const N_KA: usize = 2;
    pub const KA_STRIKE: f64 = 1000.0;
    pub const PATHS_KA: u64 = 4001;

    /// `sum_i w_i S_i e^{(r - q_i) t}`: the expected basket at `t`.
    pub fn forward_basket(t: f64) -> f64 {
        ASSETS_KA.iter().map(|a| a[1] * a[0] * ((RATE - a[2]) * t).exp()).sum()
    }

    /// The put's value `e^{-rT} K - sum_i w_i S_i e^{-q_i T}` at maturity `t`.
    pub fn put_value(t: f64) -> f64 {
        (-RATE * t).exp() * (KA_STRIKE - forward_basket(t))
    }

    pub fn identity() -> Vec<f64> {
        let m = 2 * N_KA;
        (0..m * m).map(|k| if k / m == k % m { 1.0 } else { 0.0 }).collect()
    }

    /// `+inf, 0, ..` at every date: never exercise before expiry.
    pub fn never() -> Vec<f64> {
        (0..STEPS).flat_map(|_| [f64::INFINITY, 0.0, 0.0, 0.0, 0.0, 0.0]).collect()
    }

    pub const T: f64 = MATURITY;
}

/// The mean and standard error of the per-path values `v` ([`Estimate::from_sums`]).
fn estimate_of(v: &[f64]) -> Estimate {
    Estimate::from_sums(v.iter().sum(), v.iter().map(|x| x * x).sum(), v.len() as u64)
}

/// Whether `got` is within 4 standard errors plus `allowance` (relative) of `want` (stricter
/// than [`Estimate::agrees`]' 5: these known answers are exact up to the allowance); an error
/// naming `what` otherwise.
fn within(what: &str, got: Estimate, want: f64, allowance: f64) -> Result<(), String> {
    let (m, se) = (got.mean, got.stderr);
    if (m - want).abs() <= 4.0 * se + allowance * want.abs() {
        Ok(())
    } else {
        Err(format!("{what}: {m} +/- {se} against the closed form {want} (4 standard errors + {allowance} relative)"))
    }
}

/// A lower-triangular 6 x 6 factor (any lower-triangular matrix is a valid input).
fn factor() -> Vec<f64> {
    let m = 2 * N;
    let mut f = vec![0.0; m * m];
    for r in 0..m {
        for c in 0..r {
            f[r * m + c] = 0.1 + 0.05 * ((r + 2 * c) % 4) as f64;
        }
        f[r * m + r] = 0.8;
    }
    f
}

/// An exercise rule for a put at strike 100: continuation `3 - 20 xi + 5 nu`, at every date.
fn coefficients() -> Vec<f64> {
    let one = [3.0, -20.0, 0.0, 5.0, 0.0, 0.0];
    (0..STEPS).flat_map(|_| one).collect()
}

fn path_args(set: u32) -> Vec<KArg> {
    let cells = (PATHS * u64::from(STEPS)) as usize;
    vec![
        KArg::Out(cells),
        KArg::Out(cells),
        KArg::In(records(dt())),
        KArg::In(factor()),
        KArg::U64(SEED),
        KArg::U32(set),
        KArg::U64(PATHS),
        KArg::U32(STEPS),
        KArg::U32(N as u32),
        KArg::F64(STRIKE),
        KArg::U64(lane_items(PATHS, N)),
    ]
}

/// The fixture's regression paths (basket, feature) from the CPU reference.
fn host_basket() -> Result<(Vec<f64>, Vec<f64>), String> {
    let cpu = tenor_cpu::cpu().map_err(|e| e.to_string())?;
    let mut out = launch_outputs(&cpu, "basket_paths", lane_items(PATHS, N), &path_args(0))?;
    let feature = out.pop().ok_or("basket_paths: no feature output")?;
    let basket = out.pop().ok_or("basket_paths: no basket output")?;
    Ok((basket, feature))
}

/// `basket_paths`: both path sets.
pub fn basket_paths(dev: &dyn Compute) -> Result<(), String> {
    for set in [0, 1] {
        against_cpu(dev, "basket_paths", &format!("set {set}"), lane_items(PATHS, N), &path_args(set), FP64_RTOL)?;
    }
    // A reference of its own: the known-answer fixture's mean basket at the last date against
    // the forward basket (QE with the martingale correction is a martingale on its grid).
    let cells = (known::PATHS_KA * u64::from(STEPS)) as usize;
    let args = [
        KArg::Out(cells),
        KArg::Out(cells),
        KArg::In(records_of(&known::ASSETS_KA, dt())),
        KArg::In(known::identity()),
        KArg::U64(SEED),
        KArg::U32(0),
        KArg::U64(known::PATHS_KA),
        KArg::U32(STEPS),
        KArg::U32(known::N_KA as u32),
        KArg::F64(known::KA_STRIKE),
        KArg::U64(lane_items(known::PATHS_KA, known::N_KA)),
    ];
    let got = launch_outputs(dev, "basket_paths", lane_items(known::PATHS_KA, known::N_KA), &args)?;
    let last = &got.first().ok_or("basket_paths: no basket output")?[(STEPS as usize - 1) * known::PATHS_KA as usize..];
    within("basket_paths (the mean basket at maturity)", estimate_of(last), known::forward_basket(known::T), 1e-3)
}

fn backward_args(basket: &[f64], feature: &[f64], step: u32) -> Vec<KArg> {
    let cash: Vec<f64> = (0..PATHS).map(|p| (p % 17) as f64 * 0.75).collect();
    vec![
        KArg::Out(27 * PATHS.div_ceil(256) as usize),
        KArg::InOut(cash),
        KArg::In(basket.to_vec()),
        KArg::In(feature.to_vec()),
        KArg::In(coefficients()),
        KArg::U64(PATHS),
        KArg::U32(STEPS),
        KArg::U32(step),
        KArg::U32(NBASIS),
        KArg::F64(STRIKE),
        KArg::F64(-1.0),
        KArg::F64((-RATE * dt()).exp()),
    ]
}

/// `basket_backward`: the expiry date (every in-the-money path exercises) and a middle date.
pub fn basket_backward(dev: &dyn Compute) -> Result<(), String> {
    let (basket, feature) = host_basket()?;
    for step in [STEPS - 1, 6, 0] {
        let args = backward_args(&basket, &feature, step);
        let got = against_cpu(dev, "basket_backward", &format!("step {step}"), PATHS, &args, FP64_RTOL)?;
        if step == STEPS - 1 {
            expiry_by_hand(&got, &basket)?;
        }
    }
    Ok(())
}

/// A reference of its own for the expiry date: every path's cash is its payoff
/// `max(K - B_T, 0)`, and the normal equations of the date before count its in-the-money paths
/// (`(X^T X)_00`, the first basis function is 1) and add their discounted cash (`(X^T y)_0`).
fn expiry_by_hand(got: &[Vec<f64>], basket: &[f64]) -> Result<(), String> {
    let (partials, cash) = match got {
        [partials, cash] => (partials, cash),
        _ => return Err("basket_backward: expected the partials and the cash".into()),
    };
    let paths = PATHS as usize;
    let at = |s: u32| &basket[s as usize * paths..(s as usize + 1) * paths];
    let want: Vec<f64> = at(STEPS - 1).iter().map(|b| (STRIKE - b).max(0.0)).collect();
    let d = max_rel_diff(cash, &want);
    if d > FP64_RTOL {
        return Err(format!("basket_backward (expiry): the cash differs from the payoffs by {d:e}"));
    }
    let df = (-RATE * dt()).exp();
    let itm: Vec<usize> = (0..paths).filter(|&p| at(STEPS - 2)[p] < STRIKE).collect();
    let count = itm.len() as f64;
    let sum_y: f64 = itm.iter().map(|&p| df * want[p]).sum();
    let xty = (NBASIS * (NBASIS + 1) / 2) as usize;
    let total = |k: usize| partials.chunks(27).map(|b| b[k]).sum::<f64>();
    if total(0) != count || (total(xty) - sum_y).abs() > FP64_RTOL * sum_y.abs() {
        return Err(format!(
            "basket_backward (expiry): the normal equations count {} rows adding {}, by hand {count} adding {sum_y}",
            total(0),
            total(xty)
        ));
    }
    Ok(())
}

/// `basket_solve`: the normal equations of a middle date (a fit), the same block sums repeated
/// over 600 blocks (more than a work-group's items: each item adds several blocks; the same
/// fit), and a date with too few in-the-money rows (never exercise: `+inf`, equal on both).
pub fn basket_solve(dev: &dyn Compute) -> Result<(), String> {
    let (basket, feature) = host_basket()?;
    let cpu = tenor_cpu::cpu().map_err(|e| e.to_string())?;
    let partials = launch_outputs(&cpu, "basket_backward", PATHS, &backward_args(&basket, &feature, 6))?
        .into_iter()
        .next()
        .ok_or("basket_backward: no output")?;
    let nblocks = PATHS.div_ceil(256);
    let mut few = vec![0.0; 27 * nblocks as usize];
    few[0] = 5.0; // five rows for six basis functions
    let many = partials.repeat(150);
    for (case, p) in [("a fit", partials), ("600 blocks", many), ("too few rows", few)] {
        let nblocks = (p.len() / 27) as u64;
        let args = [
            KArg::InOut(vec![0.5; (STEPS * NBASIS) as usize]),
            KArg::In(p),
            KArg::Out(27 * nblocks as usize),
            KArg::U64(nblocks),
            KArg::U32(STEPS),
            KArg::U32(5),
            KArg::U32(NBASIS),
        ];
        let want = launch_outputs(&cpu, "basket_solve", nblocks, &args)?;
        let got = launch_outputs(dev, "basket_solve", nblocks, &args)?;
        let (g, w) = (&got[0], &want[0]);
        let same_inf = g.iter().zip(w).all(|(a, b)| a.is_finite() == b.is_finite() && (a.is_finite() || a == b));
        let finite = |v: &[f64]| v.iter().map(|x| if x.is_finite() { *x } else { 0.0 }).collect::<Vec<_>>();
        let d = max_rel_diff(&finite(g), &finite(w));
        // 600 blocks are added in another order on a device (its work-group's reduction), and
        // the normal equations of the cubic basis amplify the last bits (about 1e-12 seen on
        // Intel's OpenCL CPU device): the many-block case is compared within 1e-9.
        let rtol = if case == "600 blocks" { 1e-9 } else { FP64_RTOL };
        if !same_inf || d > rtol {
            return Err(format!("basket_solve ({case}): {g:?} against the CPU reference's {w:?}"));
        }
        let step = 5 * NBASIS as usize;
        if case != "too few rows" {
            if !w[step].is_finite() {
                return Err(format!(
                    "basket_solve ({case}): the fixture's date has no fit; the check would test nothing"
                ));
            }
            // A reference of its own: the same normal equations solved by Gaussian elimination.
            let KArg::In(p) = &args[1] else { return Err("basket_solve: fixture without partials".into()) };
            let mut ne = vec![0.0; 27];
            for block in p.chunks(27) {
                ne.iter_mut().zip(block).for_each(|(a, b)| *a += b);
            }
            let want = normal_equations_fit(&ne, NBASIS as usize);
            let d = max_rel_diff(&g[step..step + NBASIS as usize], &want);
            if d > 1e-8 {
                return Err(format!("basket_solve ({case}): {:?} against Gaussian elimination's {want:?}", &g[step..]));
            }
        } else if !(g[step] == f64::INFINITY && g[step + 1..step + NBASIS as usize].iter().all(|x| *x == 0.0)) {
            // Fewer than 2 nb in-the-money rows: never exercise at that date (+inf, 0, ..).
            return Err(format!("basket_solve (too few rows): {:?}, expected (+inf, 0, ..)", &g[step..]));
        }
    }
    Ok(())
}

fn value_args(rows: usize) -> Vec<KArg> {
    vec![
        KArg::Out(rows * PATHS as usize),
        KArg::In(records(dt())),
        KArg::In(factor()),
        KArg::In(coefficients()),
        KArg::U64(SEED),
        KArg::U32(1),
        KArg::U64(PATHS),
        KArg::U32(STEPS),
        KArg::U32(N as u32),
        KArg::U32(NBASIS),
        KArg::U32(rows as u32),
        KArg::F64(STRIKE),
        KArg::F64(-1.0),
        KArg::F64(RATE),
        KArg::F64(dt()),
        KArg::F64(0.01),
        KArg::U64(lane_items(PATHS, N)),
    ]
}

/// `basket_value`: the price alone and with the first-order and gamma rows.
pub fn basket_value(dev: &dyn Compute) -> Result<(), String> {
    against_cpu(dev, "basket_value", "price", lane_items(PATHS, N), &value_args(1), FP64_RTOL)?;
    against_cpu(dev, "basket_value", "greeks", lane_items(PATHS, N), &value_args(value_rows(N)), FP64_RTOL)?;
    // A reference of its own: the known-answer put, never exercised before expiry, is worth
    // e^{-rT} K - sum_i w_i S_i e^{-q_i T}.
    let args = [
        KArg::Out(known::PATHS_KA as usize),
        KArg::In(records_of(&known::ASSETS_KA, dt())),
        KArg::In(known::identity()),
        KArg::In(known::never()),
        KArg::U64(SEED),
        KArg::U32(1),
        KArg::U64(known::PATHS_KA),
        KArg::U32(STEPS),
        KArg::U32(known::N_KA as u32),
        KArg::U32(NBASIS),
        KArg::U32(1),
        KArg::F64(known::KA_STRIKE),
        KArg::F64(-1.0),
        KArg::F64(RATE),
        KArg::F64(dt()),
        KArg::F64(0.01),
        KArg::U64(lane_items(known::PATHS_KA, known::N_KA)),
    ];
    let got = launch_outputs(dev, "basket_value", lane_items(known::PATHS_KA, known::N_KA), &args)?;
    let price = got.first().ok_or("basket_value: no output")?;
    within("basket_value (the known-answer put)", estimate_of(price), known::put_value(known::T), 1e-4)
}

/// `basket_sens`: every row, against the CPU reference within [`SENS_RTOL`].
pub fn basket_sens(dev: &dyn Compute) -> Result<(), String> {
    let rows = sens_rows(N);
    let pairs = N * (N - 1) / 2;
    let dfactor: Vec<f64> = (0..pairs * N * N).map(|k| ((k * 37) % 11) as f64 * 0.01 - 0.05).collect();
    let args = [
        KArg::Out(rows * PATHS as usize),
        KArg::In(records(dt())),
        KArg::In(bumped()),
        KArg::In(factor()),
        KArg::In(dfactor),
        KArg::In(coefficients()),
        KArg::U64(SEED),
        KArg::U32(1),
        KArg::U64(PATHS),
        KArg::U32(STEPS),
        KArg::U32(N as u32),
        KArg::U32(NBASIS),
        KArg::U32(rows as u32),
        KArg::F64(STRIKE),
        KArg::F64(-1.0),
        KArg::F64(RATE),
        KArg::F64(dt()),
        KArg::F64(1e-5 * MATURITY),
        KArg::U64(lane_items(PATHS, N)),
    ];
    against_cpu(dev, "basket_sens", "every row", lane_items(PATHS, N), &args, SENS_RTOL)?;
    // A reference of its own: the known-answer put's theta row, the difference of its value at
    // maturities T + h and T over h (minus), in closed form.
    let (n, h) = (known::N_KA, 1e-5 * MATURITY);
    let rows = sens_rows(n);
    let args = [
        KArg::Out(rows * known::PATHS_KA as usize),
        KArg::In(records_of(&known::ASSETS_KA, dt())),
        KArg::In(bumped_of(&known::ASSETS_KA)),
        KArg::In(known::identity()),
        KArg::In(vec![0.0; n * (n - 1) / 2 * n * n]),
        KArg::In(known::never()),
        KArg::U64(SEED),
        KArg::U32(1),
        KArg::U64(known::PATHS_KA),
        KArg::U32(STEPS),
        KArg::U32(n as u32),
        KArg::U32(NBASIS),
        KArg::U32(rows as u32),
        KArg::F64(known::KA_STRIKE),
        KArg::F64(-1.0),
        KArg::F64(RATE),
        KArg::F64(dt()),
        KArg::F64(h),
        KArg::U64(lane_items(known::PATHS_KA, n)),
    ];
    let got = launch_outputs(dev, "basket_sens", lane_items(known::PATHS_KA, n), &args)?;
    let out = got.first().ok_or("basket_sens: no output")?;
    let theta = &out[(rows - 1) * known::PATHS_KA as usize..];
    let want = -(known::put_value(known::T + h) - known::put_value(known::T)) / h;
    within("basket_sens (the known-answer put's theta)", estimate_of(theta), want, 1e-4)
}

/// `basket_moments`: three rows of a partial last chunk.
pub fn basket_moments(dev: &dyn Compute) -> Result<(), String> {
    let rows = 3usize;
    let values: Vec<f64> = (0..rows * PATHS as usize).map(|k| ((k * 7919) % 1013) as f64 / 91.0 - 5.0).collect();
    let items = (rows as u64) * PATHS.div_ceil(256);
    let args = [
        KArg::Out(2 * items as usize),
        KArg::In(values),
        KArg::U32(rows as u32),
        KArg::U64(PATHS),
        KArg::U64(256),
        KArg::U64(items),
    ];
    let got = against_cpu(dev, "basket_moments", "3 rows", items, &args, FP64_RTOL)?;
    // A reference of its own: the sums and sums of squares of each row's chunks of 256 paths,
    // added here in path order.
    let KArg::In(values) = &args[1] else { return Err("basket_moments: fixture without values".into()) };
    let chunks = PATHS.div_ceil(256) as usize;
    let mut want = vec![0.0; 2 * items as usize];
    for r in 0..rows {
        for c in 0..chunks {
            let cell = values[r * PATHS as usize..(r + 1) * PATHS as usize].iter().skip(256 * c).take(256);
            let g = r * chunks + c;
            for x in cell {
                want[2 * g] += x;
                want[2 * g + 1] += x * x;
            }
        }
    }
    let d = max_rel_diff(got.first().ok_or("basket_moments: no output")?, &want);
    if d > FP64_RTOL {
        return Err(format!("basket_moments (3 rows): differs from the sums added in path order by {d:e}"));
    }
    Ok(())
}

/// The least-squares fit of the packed normal equations `ne` (`nb` basis functions: the upper
/// triangle of `X^T X` row by row, then `X^T y`) by Gaussian elimination with partial pivoting,
/// a method independent of the kernels' Cholesky factorisation.
#[allow(clippy::needless_range_loop)] // matrix index loops read as the textbook's
fn normal_equations_fit(ne: &[f64], nb: usize) -> Vec<f64> {
    let mut a = vec![vec![0.0; nb + 1]; nb];
    let mut k = 0;
    for r in 0..nb {
        for c in r..nb {
            a[r][c] = ne[k];
            a[c][r] = ne[k];
            k += 1;
        }
    }
    for (r, row) in a.iter_mut().enumerate() {
        row[nb] = ne[k + r];
    }
    for col in 0..nb {
        let pivot = (col..nb).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs())).unwrap_or(col);
        a.swap(col, pivot);
        for r in col + 1..nb {
            let f = a[r][col] / a[col][col];
            for c in col..=nb {
                a[r][c] -= f * a[col][c];
            }
        }
    }
    let mut beta = vec![0.0; nb];
    for r in (0..nb).rev() {
        let s: f64 = (r + 1..nb).map(|c| a[r][c] * beta[c]).sum();
        beta[r] = (a[r][nb] - s) / a[r][r];
    }
    beta
}
