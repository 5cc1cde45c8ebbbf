//! Checks of the STAC-A2 basket's kernels (`basket_*`, `tenor_kernels::basket`) against the CPU
//! reference, on a three-asset fixture whose paths take both QE branches and both K0 branches:
//! asset 0 is a plain equity (psi under 1.5), asset 1 has xi = 1.5 at v0 = 0.01 (psi far above
//! 1.5: the exponential branch, zero variances), asset 2 has rho = 0.9 at xi = 0.1 (Andersen's
//! martingale correction undefined: K0 without it).
//!
//! Tolerances: the per-path values of `basket_paths`, `basket_backward`, `basket_value` and
//! `basket_moments` within [`FP64_RTOL`] (each backend's `exp`, `log`, `sqrt`, `erfc`, `sin`
//! and `cos` differ from the CPU's by an ulp or so, and the block sums of `basket_backward` are
//! added in the device's reduction order), `basket_backward`'s fitted coefficients too (1e-9
//! for 600 blocks), its never-exercise `+inf` equal; `basket_sens`'s rows within
//! [`SENS_RTOL`]: tangents (ADR 0038) carry the paths' last-ulp differences through their
//! derivatives, summed over the steps (Intel's OpenCL CPU device is within 1e-12; the
//! bumped copies before them needed 1e-8, their differences enlarging those ulps 1e5 times).
//!
//! Each check also has a reference of its own, so that on the CPU (the reference of the other
//! backends) it still tests something (ADR 0034): the forward basket (`basket_paths`), the payoffs
//! and counts of the expiry date by hand, Gaussian elimination for the fits and the exercise
//! decisions by hand (`basket_backward`), L L^T against the Gram matrix by hand (`basket_gram`), the closed-form value and theta of a put that is never
//! exercised early (`basket_value`, `basket_sens`: its theta, and its vegas and model vegas,
//! zero in expectation because the martingale-corrected scheme keeps E[S_i(T)] whatever the
//! variance's parameters) and sums added in path order
//! (`basket_moments`).

use tenor_kernels::basket::{
    lane_items, record, sens_rows, tangent_records, tri, value_rows, FACTOR_INV, FACTOR_RECORD, FACTOR_USED, MAX_BASIS,
    RECORD, TANGENTS,
};
use tenor_ports::Compute;

use crate::kernels::{against_cpu, is_cpu_reference, launch_outputs, launch_outputs_as, KArg};
use crate::reference::Estimate;
use crate::{max_rel_diff, FP64_RTOL};

/// Relative tolerance of `basket_sens`'s rows against the CPU reference (see the module).
pub const SENS_RTOL: f64 = 1e-10;

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

/// Tangent records as `tenor_pricing::basket::Model` makes them: each asset's record
/// differentiated by sqrt(v0), kappa, theta, xi and the maturity.
fn tangents() -> Vec<f64> {
    tangents_of(&ASSETS)
}

fn tangents_of(assets: &[[f64; 8]]) -> Vec<f64> {
    let mut out = Vec::new();
    for a in assets.iter().copied() {
        for rec in tangent_records(a[0], a[1], RATE - a[2], a[3], a[4], a[5], a[6], a[7], dt(), STEPS) {
            out.extend_from_slice(&rec);
        }
    }
    debug_assert_eq!(out.len(), assets.len() * TANGENTS * RECORD);
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

    /// Its theta, minus the derivative by the maturity: `r e^{-rT} K - sum_i q_i w_i S_i e^{-q_i T}`.
    pub fn put_theta(t: f64) -> f64 {
        RATE * (-RATE * t).exp() * KA_STRIKE
            - ASSETS_KA.iter().map(|a| a[2] * a[1] * a[0] * (-a[2] * t).exp()).sum::<f64>()
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

/// Blocks of 256 paths of the fixture (`basket_backward`'s manifest block).
const BLOCKS: usize = PATHS.div_ceil(256) as usize;

/// Values per block and date of `basket_backward`'s partial sums of `X^T y`.
const TARGETS: usize = MAX_BASIS;

/// `basket_gram`'s arguments over `paths` paths of `steps` dates (basket, feature).
fn gram_args(paths: u64, steps: u32, nbasis: u32, strike: f64, paths_data: (&[f64], &[f64])) -> Vec<KArg> {
    vec![
        KArg::Out(steps as usize * FACTOR_RECORD),
        KArg::In(paths_data.0.to_vec()),
        KArg::In(paths_data.1.to_vec()),
        KArg::U64(paths),
        KArg::U32(steps),
        KArg::U32(nbasis),
        KArg::F64(strike),
        KArg::F64(-1.0),
        KArg::U64(u64::from(steps) * 256),
    ]
}

/// The packed `X^T X` (upper triangle row by row, `nb` functions) of date `step`'s in-the-money
/// paths of a put at `strike`, added here in path order from the basis written out by hand.
fn gram_by_hand(basket: &[f64], feature: &[f64], paths: u64, step: u32, nb: usize, strike: f64) -> Vec<f64> {
    let at = step as usize * paths as usize;
    let mut g = vec![0.0; nb * (nb + 1) / 2];
    for p in 0..paths as usize {
        let (b, nu) = (basket[at + p], feature[at + p]);
        if b >= strike {
            continue;
        }
        let xi = b / strike - 1.0;
        let phi = [1.0, xi, xi * xi, nu, xi * nu, xi * xi * xi];
        let mut k = 0;
        for r in 0..nb {
            for c in r..nb {
                g[k] += phi[r] * phi[c];
                k += 1;
            }
        }
    }
    g
}

/// `basket_gram`: every date's factor record against the CPU reference (the factor within 1e-9:
/// the sums are added in the device's reduction order; the count of functions used equal), for
/// six and for three basis functions (the device's sums keep the layout of six); a reference of
/// its own: at the date before expiry L L^T is the Gram matrix added by hand, its (0, 0) entry
/// the count of in-the-money paths, the reciprocals those of L's diagonal; a date with five
/// in-the-money paths (fewer than 2 x 6) uses no function (never exercise).
pub fn basket_gram(dev: &dyn Compute) -> Result<(), String> {
    let (basket, feature) = host_basket()?;
    let data = (basket.as_slice(), feature.as_slice());
    let items = u64::from(STEPS) * 256;
    for nb in [NBASIS, 3] {
        let args = gram_args(PATHS, STEPS, nb, STRIKE, data);
        let got = launch_outputs(dev, "basket_gram", items, &args).map_err(|m| format!("basket_gram: {m}"))?;
        let rec = got.first().ok_or("basket_gram: no output")?;
        if !is_cpu_reference(dev)? {
            let cpu = tenor_cpu::cpu().map_err(|e| e.to_string())?;
            let want = launch_outputs(&cpu, "basket_gram", items, &args)?;
            let want = want.first().ok_or("basket_gram: no CPU output")?;
            let used = |r: &[f64]| r.chunks(FACTOR_RECORD).map(|d| d[FACTOR_USED]).collect::<Vec<_>>();
            let d = max_rel_diff(rec, want);
            if d > 1e-9 || used(rec) != used(want) {
                return Err(format!(
                    "basket_gram ({nb} functions): differs from the CPU reference by {d:e} (> 1e-9) or in the \
                     functions used ({:?} against {:?})",
                    used(rec),
                    used(want)
                ));
            }
        }
        let step = STEPS - 2;
        let r = &rec[step as usize * FACTOR_RECORD..][..FACTOR_RECORD];
        let n = nb as usize;
        if r[FACTOR_USED] != nb as f64 {
            return Err(format!("basket_gram ({nb} functions): date {step} uses {} functions", r[FACTOR_USED]));
        }
        let g = gram_by_hand(&basket, &feature, PATHS, step, n, STRIKE);
        let mut k = 0;
        for a in 0..n {
            for b in a..n {
                let llt: f64 = (0..=a).map(|j| r[tri(a, j)] * r[tri(b, j)]).sum();
                if (llt - g[k]).abs() > 1e-9 * g[k].abs().max(1.0) {
                    return Err(format!(
                        "basket_gram ({nb} functions): (L L^T)[{a}][{b}] = {llt}, the Gram matrix by hand {}",
                        g[k]
                    ));
                }
                k += 1;
            }
            if (r[FACTOR_INV + a] * r[tri(a, a)] - 1.0).abs() > 1e-12 {
                return Err(format!("basket_gram ({nb} functions): the reciprocal of L[{a}][{a}] is wrong"));
            }
        }
        let itm = basket[step as usize * PATHS as usize..][..PATHS as usize].iter().filter(|b| **b < STRIKE).count();
        if (r[0] * r[0] - itm as f64).abs() > 1e-9 * itm as f64 || itm == 0 {
            return Err(format!("basket_gram ({nb} functions): L00^2 = {} for {itm} in-the-money paths", r[0] * r[0]));
        }
    }
    // A strike at the sixth lowest basket of a date: five paths in the money there.
    let step = STEPS - 2;
    let mut at: Vec<f64> = basket[step as usize * PATHS as usize..][..PATHS as usize].to_vec();
    at.sort_by(f64::total_cmp);
    let args = gram_args(PATHS, STEPS, NBASIS, at[5], data);
    let got = launch_outputs(dev, "basket_gram", items, &args).map_err(|m| format!("basket_gram: {m}"))?;
    let r = &got.first().ok_or("basket_gram: no output")?[step as usize * FACTOR_RECORD..][..FACTOR_RECORD];
    if r[FACTOR_USED] != 0.0 || r[..FACTOR_USED].iter().any(|x| *x != 0.0) {
        return Err(format!("basket_gram (five rows): the record {r:?} uses functions; expected none"));
    }
    Ok(())
}

/// Every date's factor record of the fixture's regression paths, from the CPU reference.
fn host_factors(nbasis: u32, data: (&[f64], &[f64])) -> Result<Vec<f64>, String> {
    let cpu = tenor_cpu::cpu().map_err(|e| e.to_string())?;
    let args = gram_args(PATHS, STEPS, nbasis, STRIKE, data);
    launch_outputs(&cpu, "basket_gram", u64::from(STEPS) * 256, &args)?
        .pop()
        .ok_or_else(|| "basket_gram: no output".into())
}

/// `basket_backward`'s arguments: `partials` (both halves), `cash` and `factors` as given, `fits`
/// and `coef` 0.5, the counter 0, one date.
fn backward_args(
    paths: u64,
    steps: u32,
    step: u32,
    paths_data: (&[f64], &[f64]),
    factors: &[f64],
    partials: Vec<f64>,
    cash: Vec<f64>,
) -> Vec<KArg> {
    let blocks = paths.div_ceil(256) as usize;
    let state = Backward { partials, fits: vec![0.5; 6 * blocks], cash, coef: vec![0.5; (steps * NBASIS) as usize] };
    backward_args_of(paths, steps, step, 1, paths_data, factors, state)
}

/// The buffers that `basket_backward` reads and writes.
struct Backward {
    partials: Vec<f64>,
    fits: Vec<f64>,
    cash: Vec<f64>,
    coef: Vec<f64>,
}

/// `basket_backward`'s arguments from `state`, for `dates` dates from `step` (the counter 0).
fn backward_args_of(
    paths: u64,
    steps: u32,
    step: u32,
    dates: u32,
    paths_data: (&[f64], &[f64]),
    factors: &[f64],
    state: Backward,
) -> Vec<KArg> {
    vec![
        KArg::InOut(state.partials),
        KArg::InOut(state.fits),
        KArg::InOut(state.cash),
        KArg::InOut(state.coef),
        KArg::InOutU32(vec![0]),
        KArg::In(factors.to_vec()),
        KArg::In(paths_data.0.to_vec()),
        KArg::In(paths_data.1.to_vec()),
        KArg::U64(paths),
        KArg::U32(steps),
        KArg::U32(step),
        KArg::U32(dates),
        KArg::U32(NBASIS),
        KArg::F64(STRIKE),
        KArg::F64(-1.0),
        KArg::F64((-RATE * dt()).exp()),
    ]
}

/// A cash column with 17 values that is not a payoff.
fn some_cash(paths: u64) -> Vec<f64> {
    (0..paths).map(|p| (p % 17) as f64 * 0.75).collect()
}

/// `basket_backward` on `dev`, its outputs (partials, fits, cash, coef) against the CPU
/// reference's: the fitted coefficients and their copies within `fit_rtol` (a never-exercise
/// `+inf` equal), the rest within [`FP64_RTOL`].
fn backward_against_cpu(dev: &dyn Compute, case: &str, args: &[KArg], fit_rtol: f64) -> Result<Vec<Vec<f64>>, String> {
    let Some(&KArg::U64(paths)) = args.get(8) else { return Err("basket_backward: fixture without paths".into()) };
    let got =
        launch_outputs(dev, "basket_backward", paths, args).map_err(|m| format!("basket_backward ({case}): {m}"))?;
    if is_cpu_reference(dev)? {
        return Ok(got);
    }
    let cpu = tenor_cpu::cpu().map_err(|e| e.to_string())?;
    let want = launch_outputs(&cpu, "basket_backward", paths, args)?;
    for (o, (g, w)) in got.iter().zip(&want).enumerate() {
        let same_inf = g.len() == w.len()
            && g.iter().zip(w).all(|(a, b)| a.is_finite() == b.is_finite() && (a.is_finite() || a == b));
        let finite = |v: &[f64]| v.iter().map(|x| if x.is_finite() { *x } else { 0.0 }).collect::<Vec<_>>();
        let d = max_rel_diff(&finite(g), &finite(w));
        let rtol = if o == 1 || o == 3 { fit_rtol } else { FP64_RTOL };
        if !same_inf || d > rtol {
            return Err(format!(
                "basket_backward ({case}): output {o} differs from the CPU reference by {d:e} (> {rtol:e}), \
                 or in its infinities"
            ));
        }
    }
    Ok(got)
}

/// `basket_backward`, each case against the CPU reference and a reference of its own: the
/// expiry date (every in-the-money path exercises; nothing fitted), the next date fitted from
/// the expiry launch's sums and its factor record (the fit against Gaussian elimination of the
/// normal equations added by hand, the decisions by hand), the same sums spread over 600 blocks
/// (more than a work-group's items: each item adds several blocks; blocks past the first 256
/// must count), a date whose record uses no function (never exercise: `+inf`), and date 0
/// (fitted and decided, no sums written).
pub fn basket_backward(dev: &dyn Compute) -> Result<(), String> {
    let (basket, feature) = host_basket()?;
    let half = TARGETS * BLOCKS;
    let data = (basket.as_slice(), feature.as_slice());
    let factors = host_factors(NBASIS, data)?;
    // The expiry date: sums of date STEPS - 2 into half (STEPS - 2) mod 2.
    let last = STEPS - 1;
    let args = backward_args(PATHS, STEPS, last, data, &factors, vec![0.5; 2 * half], some_cash(PATHS));
    let got = backward_against_cpu(dev, "expiry", &args, FP64_RTOL)?;
    expiry_by_hand(&got, &basket, &feature)?;
    let (partials, expiry_cash) = (got[0].clone(), got[2].clone());
    let date_sums = partials[(STEPS as usize - 2) % 2 * half..][..half].to_vec();

    // The date before expiry, fitted from the expiry launch's sums (in half (STEPS - 2) mod 2).
    let step = STEPS - 2;
    let args = backward_args(PATHS, STEPS, step, data, &factors, partials.clone(), expiry_cash.clone());
    let got = backward_against_cpu(dev, "a fit", &args, FP64_RTOL)?;
    let gram = gram_by_hand(&basket, &feature, PATHS, step, NBASIS as usize, STRIKE);
    let fit = fitted("a fit", &got, &gram, &date_sums, step, BLOCKS)?;
    decided_by_hand("a fit", &got[2], &expiry_cash, &fit, &basket, &feature, PATHS, step)?;
    kept("a fit", &got[0][(step as usize % 2) * half..][..half], &date_sums)?;

    // The same date's sums in 4 of 600 blocks (0, 257, 513, 599; the others zero), over the
    // fixture's paths tiled to 600 x 256 (dates STEPS - 3 .. STEPS - 1 as 0 .. 2, step 1, whose
    // factor record is that of date STEPS - 2).
    let many = 600 * 256u64;
    let tile = |v: &[f64]| -> Vec<f64> {
        (0..3)
            .flat_map(|s| (0..many).map(move |p| (s, p)))
            .map(|(s, p)| v[(STEPS as usize - 3 + s) * PATHS as usize + (p % PATHS) as usize])
            .collect()
    };
    let (tb, tf) = (tile(&basket), tile(&feature));
    let tiled_factors: Vec<f64> =
        (0..3).flat_map(|s| factors[(STEPS as usize - 3 + s) * FACTOR_RECORD..][..FACTOR_RECORD].to_vec()).collect();
    let mut spread = vec![0.0; 2 * TARGETS * 600];
    for (b, at) in [0usize, 257, 513, 599].into_iter().enumerate() {
        for k in 0..TARGETS {
            spread[TARGETS * 600 + 600 * k + at] = date_sums[BLOCKS * k + b];
        }
    }
    let tiled_cash: Vec<f64> = (0..many).map(|p| expiry_cash[(p % PATHS) as usize]).collect();
    let args = backward_args(many, 3, 1, (&tb, &tf), &tiled_factors, spread.clone(), tiled_cash.clone());
    // The blocks are added in another order on a device (its work-group's reduction), and the
    // normal equations of the cubic basis amplify the last bits (about 1e-12 seen on Intel's
    // OpenCL CPU device): the fit is compared within 1e-9.
    let got = backward_against_cpu(dev, "600 blocks", &args, 1e-9)?;
    let fit600 = fitted("600 blocks", &got, &gram, &spread[TARGETS * 600..], 1, 600)?;
    if max_rel_diff(&fit600, &fit) > 1e-9 {
        return Err(format!("basket_backward (600 blocks): fit {fit600:?}, from the same sums in 4 blocks {fit:?}"));
    }
    decided_by_hand("600 blocks", &got[2], &tiled_cash, &fit600, &tb, &tf, many, 1)?;

    // A date whose factor record uses no function (too few in-the-money rows): never exercise.
    let step = 6;
    let mut none = factors.clone();
    none[step as usize * FACTOR_RECORD..][..FACTOR_RECORD].fill(0.0);
    let cash = some_cash(PATHS);
    let args = backward_args(PATHS, STEPS, step, data, &none, vec![0.5; 2 * half], cash.clone());
    let got = backward_against_cpu(dev, "too few rows", &args, FP64_RTOL)?;
    let coef = &got[3][step as usize * NBASIS as usize..][..NBASIS as usize];
    if !(coef[0] == f64::INFINITY && coef[1..].iter().all(|x| *x == 0.0)) {
        return Err(format!("basket_backward (too few rows): {coef:?}, expected (+inf, 0, ..)"));
    }
    let df = (-RATE * dt()).exp();
    let want: Vec<f64> = cash.iter().map(|c| df * c).collect();
    if max_rel_diff(&got[2], &want) > FP64_RTOL {
        return Err("basket_backward (too few rows): a path exercised under the never-exercise rule".into());
    }

    // Date 0: fitted (the sums of the fit above, in half 0, with that date's record) and
    // decided; no date before it, so half 1 is kept.
    let mut zero = vec![0.5; 2 * half];
    zero[..half].copy_from_slice(&date_sums);
    let mut moved = factors.clone();
    moved.copy_within(step_range(STEPS - 2), 0);
    let cash = some_cash(PATHS);
    let args = backward_args(PATHS, STEPS, 0, data, &moved, zero, cash.clone());
    let got = backward_against_cpu(dev, "step 0", &args, FP64_RTOL)?;
    let fit0 = fitted("step 0", &got, &gram, &date_sums, 0, BLOCKS)?;
    decided_by_hand("step 0", &got[2], &cash, &fit0, &basket, &feature, PATHS, 0)?;
    kept("step 0", &got[0][half..], &vec![0.5; half])?;
    backward_dates(dev, data, &factors)
}

/// Three dates (expiry and the two before) in one launch: through [`Compute::launch_cooperative`]
/// where the device runs all the fixture's blocks at once, against three launches of one date on
/// the CPU reference (the counter at 2 x blocks: two waits); elsewhere the cooperative launch is
/// refused; a plain launch of three dates is refused everywhere (the manifest's `launch.waits`).
fn backward_dates(dev: &dyn Compute, data: (&[f64], &[f64]), factors: &[f64]) -> Result<(), String> {
    let half = TARGETS * BLOCKS;
    let start = || Backward {
        partials: vec![0.5; 2 * half],
        fits: vec![0.5; 6 * BLOCKS],
        cash: some_cash(PATHS),
        coef: vec![0.5; (STEPS * NBASIS) as usize],
    };
    let all = backward_args_of(PATHS, STEPS, STEPS - 1, 3, data, factors, start());
    let kernel = dev
        .load_kernel(tenor_kernels::get("basket_backward").map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let resident = dev.resident_blocks(&kernel).map_err(|e| e.to_string())?;
    let Some(resident) = resident.filter(|r| *r >= BLOCKS as u64) else {
        if launch_outputs_as(dev, "basket_backward", PATHS, &all, true).is_ok() {
            return Err(format!(
                "basket_backward (3 dates): a cooperative launch succeeded where the device runs {resident:?} blocks \
                 at once (fewer than the {BLOCKS} needed, or none)"
            ));
        }
        // A plain launch of three dates would leave blocks waiting on blocks that are not
        // resident: the port refuses it, naming `dates` (the manifest's launch.waits).
        match launch_outputs(dev, "basket_backward", PATHS, &all) {
            Err(m) if m.contains("dates") => {}
            Err(m) => {
                return Err(format!("basket_backward (3 dates, plain launch): refused without naming dates: {m}"))
            }
            Ok(_) => return Err("basket_backward (3 dates, plain launch): the port took it".into()),
        }
        return Ok(());
    };
    let got = launch_outputs_as(dev, "basket_backward", PATHS, &all, true)
        .map_err(|m| format!("basket_backward (3 dates in one cooperative launch, {resident} blocks resident): {m}"))?;
    let cpu = tenor_cpu::cpu().map_err(|e| e.to_string())?;
    let mut state = start();
    for step in [STEPS - 1, STEPS - 2, STEPS - 3] {
        let args = backward_args_of(PATHS, STEPS, step, 1, data, factors, state);
        let mut out = launch_outputs(&cpu, "basket_backward", PATHS, &args)?.into_iter();
        let mut next = || out.next().ok_or("basket_backward: an output is missing");
        state = Backward { partials: next()?, fits: next()?, cash: next()?, coef: next()? };
    }
    let want = [state.partials, state.fits, state.cash, state.coef];
    for (o, (g, w)) in got.iter().zip(&want).enumerate() {
        let d = max_rel_diff(g, w);
        let rtol = if o == 1 || o == 3 { 1e-9 } else { FP64_RTOL };
        if g.len() != w.len() || d > rtol {
            return Err(format!(
                "basket_backward (3 dates in one launch): output {o} differs from three launches of one date on \
                 the CPU reference by {d:e} (> {rtol:e})"
            ));
        }
    }
    if got.get(4).map(Vec::as_slice) != Some(&[2.0 * BLOCKS as f64][..]) {
        return Err(format!(
            "basket_backward (3 dates in one launch): the counter ends at {:?}, not 2 x {BLOCKS}",
            got.get(4)
        ));
    }
    Ok(())
}

/// The range of date `step`'s factor record.
fn step_range(step: u32) -> std::ops::Range<usize> {
    step as usize * FACTOR_RECORD..(step as usize + 1) * FACTOR_RECORD
}

/// The coefficients `got` (partials, fits, cash, coef) fitted at `step` from the sums `sums`
/// (6 slots of `blocks` blocks, slot-major), checked against Gaussian elimination of the normal
/// equations (`gram` by hand, `X^T y` the sums' total) and against every block's copy in `fits`
/// (the same bits: every work-group adds the same sums in the same order).
fn fitted(
    case: &str,
    got: &[Vec<f64>],
    gram: &[f64],
    sums: &[f64],
    step: u32,
    blocks: usize,
) -> Result<Vec<f64>, String> {
    let nb = NBASIS as usize;
    let coef = got[3][step as usize * nb..][..nb].to_vec();
    if !coef[0].is_finite() {
        return Err(format!("basket_backward ({case}): the fixture's date has no fit; the check would test nothing"));
    }
    let mut ne = gram.to_vec();
    ne.extend(sums.chunks(blocks).take(nb).map(|slot| slot.iter().sum::<f64>()));
    let want = normal_equations_fit(&ne, nb);
    let d = max_rel_diff(&coef, &want);
    if d > 1e-8 {
        return Err(format!("basket_backward ({case}): fit {coef:?} against Gaussian elimination's {want:?}"));
    }
    if let Some(g) = got[1].chunks(6).position(|f| f[..nb] != coef[..]) {
        return Err(format!(
            "basket_backward ({case}): block {g}'s copy of the fit {:?} is not {coef:?}",
            &got[1][6 * g..][..nb]
        ));
    }
    Ok(coef)
}

/// A reference of its own for a fitted date: a put path exercises where its payoff is positive
/// and above the continuation `coef . (1, xi, xi^2, nu, xi nu, xi^3)`, `xi = B / K - 1`; its
/// cash becomes the payoff, else the discounted `cash_in`. Some paths must do each.
#[allow(clippy::too_many_arguments)]
fn decided_by_hand(
    case: &str,
    cash: &[f64],
    cash_in: &[f64],
    coef: &[f64],
    basket: &[f64],
    feature: &[f64],
    paths: u64,
    step: u32,
) -> Result<(), String> {
    let df = (-RATE * dt()).exp();
    let at = step as usize * paths as usize;
    let (mut exercised, mut held) = (0, 0);
    let want: Vec<f64> = (0..paths as usize)
        .map(|p| {
            let (b, nu) = (basket[at + p], feature[at + p]);
            let xi = b / STRIKE - 1.0;
            let phi = [1.0, xi, xi * xi, nu, xi * nu, xi * xi * xi];
            let continuation: f64 = coef.iter().zip(phi).map(|(c, f)| c * f).sum();
            let payoff = (STRIKE - b).max(0.0);
            if payoff > 0.0 && payoff > continuation {
                exercised += 1;
                payoff
            } else {
                held += 1;
                df * cash_in[p]
            }
        })
        .collect();
    let d = max_rel_diff(cash, &want);
    if d > FP64_RTOL || exercised == 0 || held == 0 {
        return Err(format!(
            "basket_backward ({case}): the cash differs from the decisions by hand by {d:e} \
             ({exercised} paths exercised, {held} held; both must be some)"
        ));
    }
    Ok(())
}

/// The half of the partials that the launch must not write, against what it held.
fn kept(case: &str, got: &[f64], before: &[f64]) -> Result<(), String> {
    if got == before {
        Ok(())
    } else {
        Err(format!("basket_backward ({case}): the launch wrote the half of the partials it must keep"))
    }
}

/// A reference of its own for the expiry date: every path's cash is its payoff
/// `max(K - B_T, 0)`, and the sums `X^T y` of the date before (half (STEPS - 2) mod 2) add the
/// discounted cash (`phi_0 = 1`) and the discounted cash times `nu` (`phi_3`) of its in-the-money
/// paths; nothing else is written.
fn expiry_by_hand(got: &[Vec<f64>], basket: &[f64], feature: &[f64]) -> Result<(), String> {
    let [partials, fits, cash, coef, sync] = got else {
        return Err(
            "basket_backward: expected the partials, the fits, the cash, the coefficients and the counter".into()
        );
    };
    if sync != &[0.0] {
        return Err(format!("basket_backward (expiry): a launch of one date moved the counter to {sync:?}"));
    }
    let paths = PATHS as usize;
    let at = |v: &'_ [f64], s: u32| v[s as usize * paths..(s as usize + 1) * paths].to_vec();
    let want: Vec<f64> = at(basket, STEPS - 1).iter().map(|b| (STRIKE - b).max(0.0)).collect();
    let d = max_rel_diff(cash, &want);
    if d > FP64_RTOL {
        return Err(format!("basket_backward (expiry): the cash differs from the payoffs by {d:e}"));
    }
    let df = (-RATE * dt()).exp();
    let (before, nu) = (at(basket, STEPS - 2), at(feature, STEPS - 2));
    let itm: Vec<usize> = (0..paths).filter(|&p| before[p] < STRIKE).collect();
    let sum_y: f64 = itm.iter().map(|&p| df * want[p]).sum();
    let sum_nu_y: f64 = itm.iter().map(|&p| nu[p] * df * want[p]).sum();
    let half = TARGETS * BLOCKS;
    let written = &partials[(STEPS as usize - 2) % 2 * half..][..half];
    let total = |k: usize| written[BLOCKS * k..][..BLOCKS].iter().sum::<f64>();
    let off = |got: f64, want: f64| (got - want).abs() > 1e-12 * want.abs();
    if itm.is_empty() || off(total(0), sum_y) || off(total(3), sum_nu_y) {
        return Err(format!(
            "basket_backward (expiry): X^T y adds {} and {} (phi 1 and nu), by hand {sum_y} and {sum_nu_y} \
             over {} in-the-money paths",
            total(0),
            total(3),
            itm.len()
        ));
    }
    kept("expiry", &partials[(STEPS as usize - 1) % 2 * half..][..half], &vec![0.5; half])?;
    if fits.iter().chain(coef.iter()).any(|x| *x != 0.5) {
        return Err("basket_backward (expiry): the last date fitted coefficients (it has none to fit)".into());
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
    let rows = value_rows(N) + sens_rows(N);
    let pairs = N * (N - 1) / 2;
    let dfactor: Vec<f64> = (0..pairs * N * N).map(|k| ((k * 37) % 11) as f64 * 0.01 - 0.05).collect();
    let args = [
        KArg::Out(rows * PATHS as usize),
        KArg::In(records(dt())),
        KArg::In(tangents()),
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
        KArg::F64(0.01),
        KArg::U64(lane_items(PATHS, N)),
    ];
    let got = against_cpu(dev, "basket_sens", "every row", lane_items(PATHS, N), &args, SENS_RTOL)?;
    // Its first value_rows(N) rows are basket_value's with Greeks for the same arguments, on the
    // same device bit for bit (the same operations per path, whether in one pass or two).
    let value = launch_outputs(dev, "basket_value", lane_items(PATHS, N), &value_args(value_rows(N)))?;
    let (own, theirs) = (got.first().ok_or("basket_sens: no output")?, value.first().ok_or("basket_value: no output")?);
    let cells = value_rows(N) * PATHS as usize;
    if own.len() < cells
        || theirs.len() != cells
        || own[..cells].iter().zip(theirs).any(|(a, b)| a.to_bits() != b.to_bits())
    {
        return Err("basket_sens: its value rows differ from basket_value's on the same device".into());
    }
    // References of its own: the known-answer put's theta row against the closed form, and its
    // vegas and model vegas against 0 (the forward basket does not depend on them).
    let n = known::N_KA;
    let rows = value_rows(n) + sens_rows(n);
    let args = [
        KArg::Out(rows * known::PATHS_KA as usize),
        KArg::In(records_of(&known::ASSETS_KA, dt())),
        KArg::In(tangents_of(&known::ASSETS_KA)),
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
        KArg::F64(0.01),
        KArg::U64(lane_items(known::PATHS_KA, n)),
    ];
    let got = launch_outputs(dev, "basket_sens", lane_items(known::PATHS_KA, n), &args)?;
    let out = got.first().ok_or("basket_sens: no output")?;
    let paths = known::PATHS_KA as usize;
    let row = |r: usize| &out[r * paths..(r + 1) * paths];
    let vrows = value_rows(n);
    for r in 0..4 * n {
        within(&format!("basket_sens (the known-answer put's vega row {r})"), estimate_of(row(vrows + r)), 0.0, 0.0)?;
    }
    within("basket_sens (the known-answer put's theta)", estimate_of(row(rows - 1)), known::put_theta(known::T), 1e-4)
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
