//! Longstaff-Schwartz (2001) least-squares Monte Carlo for American options on the `Compute`
//! port ("Valuing American options by simulation: a simple least-squares approach", RFS 14).
//!
//! Per exercise date, backwards from expiry: the `lsm_basis` kernel writes the regression
//! design (Laguerre polynomials of `S/K` for in-the-money paths, as Longstaff and Schwartz,
//! and the discounted realised cash flow as the last column); one `Compute::gemm` forms
//! `[X y]^T [X y]`, i.e. the normal equations `X^T X` and `X^T y`; the host solves them with
//! nalgebra's Cholesky factorisation; the `lsm_exercise` kernel applies the exercise rule.
//! With `out_of_sample` the regression runs on one set of paths and the exercise rule is
//! applied to an independent set, which gives a low-biased estimator (a feasible stopping
//! rule; Glasserman 2004, section 8.6); in-sample estimates carry a small high bias as well.

use nalgebra::{DMatrix, DVector};
use tenor_kernels::typed::{LsmBasis, LsmExercise, LsmPaths, ReduceSumSumsq};
use tenor_ports::{Compute, ComputeExt, DeviceBuffer, GemmDesc, Precision, Stream, Transpose};

use super::{validate, AmericanError};
use crate::types::Vanilla;

/// Longstaff-Schwartz settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LsmConfig {
    /// Paths (even: antithetic pairs).
    pub paths: u64,
    /// Exercise dates, equally spaced, the last at expiry (Bermudan approximation of the
    /// American option).
    pub exercise_dates: u32,
    /// Basis functions (Laguerre polynomials `L_0 .. L_{nbasis-1}` of `S/K`), 1 to 8.
    pub nbasis: u32,
    /// Philox seed (the out-of-sample valuation uses `seed + 1`).
    pub seed: u64,
    /// Value on paths independent of the regression's (low-biased estimator).
    pub out_of_sample: bool,
}

impl Default for LsmConfig {
    /// 100 000 paths, 50 exercise dates, 4 basis functions, seed 1, out of sample.
    fn default() -> Self {
        Self { paths: 100_000, exercise_dates: 50, nbasis: 4, seed: 1, out_of_sample: true }
    }
}

/// Longstaff-Schwartz estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LsmResult {
    /// Present value estimate (at least the intrinsic value today).
    pub price: f64,
    /// Standard error of the path average.
    pub std_error: f64,
}

struct Kernels {
    paths: tenor_ports::Kernel,
    basis: tenor_ports::Kernel,
    exercise: tenor_ports::Kernel,
    reduce: tenor_ports::Kernel,
}

/// American price of `v` by Longstaff-Schwartz on `dev`.
///
/// # Errors
/// [`AmericanError::InvalidParameter`] for a bad contract or configuration (vol and maturity
/// must be > 0); [`AmericanError::SingularRegression`] when the normal equations cannot be
/// factorised; backend errors as [`AmericanError::Compute`].
pub fn lsm_price<C: Compute + ?Sized>(dev: &C, v: &Vanilla, cfg: &LsmConfig) -> Result<LsmResult, AmericanError> {
    validate(v)?;
    let bad = |name, value: f64, reason| Err(AmericanError::InvalidParameter { name, value, reason });
    if v.vol <= 0.0 {
        return bad("vol", v.vol, "must be > 0 for Monte Carlo");
    }
    if v.maturity <= 0.0 {
        return bad("maturity", v.maturity, "must be > 0 for Monte Carlo");
    }
    if cfg.paths < 2 || cfg.paths % 2 == 1 {
        return bad("paths", cfg.paths as f64, "must be even and >= 2");
    }
    if cfg.exercise_dates == 0 {
        return bad("exercise_dates", 0.0, "must be >= 1");
    }
    if !(1..=8).contains(&cfg.nbasis) {
        return bad("nbasis", f64::from(cfg.nbasis), "must be 1 to 8");
    }
    let stream = dev.default_stream().clone();
    let k = Kernels {
        paths: LsmPaths::load(dev)?,
        basis: LsmBasis::load(dev)?,
        exercise: LsmExercise::load(dev)?,
        reduce: ReduceSumSumsq::load(dev)?,
    };
    let steps = cfg.exercise_dates;
    let dt = v.maturity / f64::from(steps);
    let df = (-v.rate * dt).exp();
    let nb = cfg.nbasis as usize;
    let n = cfg.paths as usize;

    // Regression pass.
    let spots = simulate(dev, &stream, &k, v, cfg, cfg.seed, dt)?;
    let cash = dev.upload_slice(&stream, &vec![0.0f64; n])?;
    let mut coef = vec![0.0f64; steps as usize * nb];
    // Expiry: continuation -inf, so every in-the-money path exercises.
    coef[(steps as usize - 1) * nb] = f64::NEG_INFINITY;
    let design = dev.alloc_elems::<f64>(&stream, n * (nb + 1))?;
    let normal = dev.alloc_elems::<f64>(&stream, nb * (nb + 1))?;
    let mut coef_buf = dev.upload_slice(&stream, &coef)?;
    exercise(dev, &stream, &k, &spots, &cash, &coef_buf, v, cfg, steps - 1, 0.0)?;
    for s in (0..steps - 1).rev() {
        LsmBasis {
            spots: &spots,
            cash: &cash,
            design: &design,
            paths: cfg.paths,
            step: s,
            nbasis: cfg.nbasis,
            strike: v.strike,
            sign: v.option.sign(),
            df,
        }
        .launch_loaded(dev, &stream, &k.basis)?;
        // [X y]^T [X y]: A = X (paths x nb, first nb columns of the design), B = [X y].
        let desc = GemmDesc::new(Precision::F64, Transpose::Yes, Transpose::No, nb, nb + 1, n);
        let desc = GemmDesc { lda: n, ldb: n, ..desc };
        dev.gemm(&stream, &desc, &design, &design, &normal)?;
        let ne = dev.download_vec::<f64>(&stream, &normal)?;
        let beta = solve_normal_equations(&ne, nb, s)?;
        coef[s as usize * nb..(s as usize + 1) * nb].copy_from_slice(&beta);
        dev.upload(&stream, &coef_buf, s as usize * nb * 8, bytemuck::cast_slice(&beta))?;
        exercise(dev, &stream, &k, &spots, &cash, &coef_buf, v, cfg, s, df)?;
    }

    // Valuation pass on independent paths with the fitted exercise rule.
    let cash = if cfg.out_of_sample {
        drop(spots);
        let spots = simulate(dev, &stream, &k, v, cfg, cfg.seed.wrapping_add(1), dt)?;
        let cash = dev.upload_slice(&stream, &vec![0.0f64; n])?;
        coef_buf = dev.upload_slice(&stream, &coef)?;
        for s in (0..steps).rev() {
            let d = if s == steps - 1 { 0.0 } else { df };
            exercise(dev, &stream, &k, &spots, &cash, &coef_buf, v, cfg, s, d)?;
        }
        cash
    } else {
        cash
    };

    // Mean and standard error through the reduction kernel; discount from t_1 to today.
    let blocks = n.div_ceil(k.reduce.def().launch.block as usize);
    let partials = dev.alloc_elems::<f64>(&stream, 2 * blocks)?;
    ReduceSumSumsq { x: &cash, partials: &partials, n: cfg.paths }.launch_loaded(dev, &stream, &k.reduce)?;
    let part = dev.download_vec::<f64>(&stream, &partials)?;
    let (s1, s2) = part.chunks_exact(2).fold((0.0, 0.0), |(a, b), c| (a + c[0], b + c[1]));
    let nf = n as f64;
    let mean = s1 / nf;
    // Antithetic pairs are not independent; the pair-blind variance is an upper bound for
    // puts and calls (monotone payoffs are negatively correlated across a pair).
    let var = ((s2 / nf - mean * mean) * nf / (nf - 1.0)).max(0.0);
    let price = (df * mean).max(v.option.payoff(v.spot, v.strike));
    Ok(LsmResult { price, std_error: df * (var / nf).sqrt() })
}

/// Solves `X^T X beta = X^T y` from the column-major `nb x (nb + 1)` product `[X^T X | X^T y]`.
/// Fewer than `2 nb` in-the-money paths (`(X^T X)_{00}` counts them): no exercise at this date.
fn solve_normal_equations(ne: &[f64], nb: usize, step: u32) -> Result<Vec<f64>, AmericanError> {
    let itm = ne[0].round() as usize;
    if itm < 2 * nb {
        let mut never = vec![0.0; nb];
        never[0] = f64::INFINITY;
        return Ok(never);
    }
    let a = DMatrix::from_column_slice(nb, nb, &ne[..nb * nb]);
    let b = DVector::from_column_slice(&ne[nb * nb..nb * (nb + 1)]);
    let chol = a.cholesky().ok_or(AmericanError::SingularRegression { step: step as usize, itm })?;
    Ok(chol.solve(&b).iter().copied().collect())
}

#[allow(clippy::too_many_arguments)]
fn exercise<C: Compute + ?Sized>(
    dev: &C,
    stream: &Stream,
    k: &Kernels,
    spots: &DeviceBuffer,
    cash: &DeviceBuffer,
    coef: &DeviceBuffer,
    v: &Vanilla,
    cfg: &LsmConfig,
    step: u32,
    df: f64,
) -> Result<(), AmericanError> {
    LsmExercise {
        spots,
        cash,
        coef,
        paths: cfg.paths,
        step,
        nbasis: cfg.nbasis,
        strike: v.strike,
        sign: v.option.sign(),
        df,
    }
    .launch_loaded(dev, stream, &k.exercise)?;
    Ok(())
}

fn simulate<C: Compute + ?Sized>(
    dev: &C,
    stream: &Stream,
    k: &Kernels,
    v: &Vanilla,
    cfg: &LsmConfig,
    seed: u64,
    dt: f64,
) -> Result<DeviceBuffer, AmericanError> {
    let spots = dev.alloc_elems::<f64>(stream, cfg.paths as usize * cfg.exercise_dates as usize)?;
    LsmPaths {
        out: &spots,
        seed,
        paths: cfg.paths,
        steps: cfg.exercise_dates,
        spot: v.spot,
        drift_dt: (v.rate - v.dividend - 0.5 * v.vol * v.vol) * dt,
        vol_sqrt_dt: v.vol * dt.sqrt(),
    }
    .launch_loaded(dev, stream, &k.paths)?;
    Ok(spots)
}
