//! The basket job on the `Compute` port: Longstaff-Schwartz regression on one set of paths,
//! valuation and every Greek on an independent set (ADR 0031).
//!
//! 1. **Regression** (American only): `basket_paths` stores the basket and the regression
//!    feature of every path and date (path set 0); `basket_gram` factors every date's Gram matrix
//!    `X^T X` at once (it does not depend on the exercise decisions: ADR 0036); backwards from
//!    expiry, `basket_backward` date by date: every work-group adds the block sums of that date's
//!    `X^T y` (written at the date after) and substitutes them into the date's factor on the
//!    device, decides the date's exercise and writes the block sums of the previous date (two
//!    halves of one buffer, alternating by date): no host round trip and no factorisation per
//!    date; every date in one cooperative launch where all its blocks fit on the device at once
//!    (CUDA; the blocks meet at a grid barrier per date), else one launch per date.
//! 2. **Valuation** (path set 1, the exercise rule fitted above): `basket_value` (the price) or,
//!    with Greeks, `basket_sens` (`basket_value`'s rows with Greeks: price, deltas, gammas, cross
//!    gammas, rho; then vegas, model vegas, correlation vegas, theta) writes each path's
//!    contribution to every estimate; the normals of a path are drawn once and shared by every
//!    scenario of it (on CUDA in one pass per path: ADR 0035).
//! 3. **Moments**: `basket_moments` sums each estimate's values and squares in chunks in path
//!    order; the host adds the chunks in order, so the estimates are the same function of the
//!    per-path values on every backend.

use tenor_kernels::basket::{lane_items, sens_rows, value_rows, FACTOR_RECORD, MAX_BASIS};
use tenor_kernels::typed::{BasketBackward, BasketGram, BasketMoments, BasketPaths, BasketSens, BasketValue};
use tenor_ports::progress::Steps;
use tenor_ports::{Compute, ComputeExt, DeviceBuffer, NoProgress, Progress, Stream};

use super::error::BasketError;
use super::job::{BasketJob, Exercise};
use super::model::{Model, GAMMA_BUMP};

/// Regression basis functions (of `1, xi, xi^2, nu, xi nu, xi^3`; ADR 0031).
pub const NBASIS: u32 = MAX_BASIS as u32;

/// Paths per item of `basket_moments`: 32 (with 256, the baseline's 53 rows x 98 chunks left
/// the device's load latencies exposed: 46 us on an H100 against 12.6 us).
pub const MOMENT_CHUNK: u64 = 32;

/// Values per block of `basket_backward`'s partial sums of `X^T y`.
const SLOTS: usize = MAX_BASIS;

/// One row of `greeks.csv`: `greek,asset,other,value,stderr`.
#[derive(Debug, Clone, PartialEq)]
pub struct GreekRow {
    /// `price`, `delta`, `gamma`, `cross_gamma`, `vega`, `model_vega_kappa`,
    /// `model_vega_theta`, `model_vega_xi`, `correlation_vega`, `rho` or `theta`.
    pub greek: &'static str,
    /// The asset's index (its name in the file: [`BasketJob::assets`]), where the Greek has one.
    pub asset: Option<usize>,
    /// The second asset's index, for `cross_gamma` and `correlation_vega` (`asset < other`).
    pub other: Option<usize>,
    /// The estimate (the option's currency per unit of the parameter).
    pub value: f64,
    /// Its Monte Carlo standard error.
    pub stderr: Option<f64>,
}

/// How [`price_basket_with`] estimates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BasketSettings {
    /// Every Greek of the spec (else the price alone).
    pub greeks: bool,
    /// Relative spot bump of the gammas and cross gammas ([`GAMMA_BUMP`]).
    pub gamma_bump: f64,
    /// Regression basis functions, 1 to 6 ([`NBASIS`]).
    pub nbasis: u32,
    /// Synchronise the device after each phase and time it ([`BasketOutcome::phases`]).
    pub time_phases: bool,
    /// The backward induction in one cooperative launch where the device has them and every
    /// block fits at once ([`Compute::resident_blocks`]; ADR 0036); `false`: one launch per date
    /// on every device.
    pub cooperative: bool,
}

impl Default for BasketSettings {
    /// Every Greek, [`GAMMA_BUMP`], [`NBASIS`], no phase timing, a cooperative backward
    /// induction where the device has it.
    fn default() -> Self {
        Self { greeks: true, gamma_bump: GAMMA_BUMP, nbasis: NBASIS, time_phases: false, cooperative: true }
    }
}

/// Wall-clock seconds of each phase of one job (with [`BasketSettings::time_phases`]).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PhaseTimes {
    /// Uploads and the regression's paths (`basket_paths`; American only).
    pub paths_s: f64,
    /// The backward induction (`basket_gram`, then `basket_backward`; American only).
    pub backward_s: f64,
    /// `basket_backward` launches: 1 (cooperative: every date in one launch) or one per date.
    pub backward_launches: u32,
    /// Of [`PhaseTimes::backward_s`], the host's time to enqueue the launches (the rest: the
    /// device's work not yet done when the last launch was enqueued). Near `backward_s`, the
    /// backward induction is bound by the host's launches.
    pub backward_enqueue_s: f64,
    /// `basket_value` and its moments (the price alone; 0 with Greeks).
    pub value_s: f64,
    /// `basket_sens` and its moments (with Greeks: every row, `basket_value`'s included).
    pub sens_s: f64,
}

/// What [`price_basket`] returns.
#[derive(Debug, Clone, PartialEq)]
pub struct BasketOutcome {
    /// The rows in the spec's order: price, deltas, gammas, cross gammas, vegas, kappa, theta
    /// and xi vegas, correlation vegas, rho, theta (only the price without Greeks).
    pub rows: Vec<GreekRow>,
    /// Priced scenarios, bumps included: 1, plus with Greeks 2N spot-rescaled scenarios, 4N
    /// model-parameter bumps, one per price correlation pair, the rate and the maturity (the
    /// scenarios a bump-and-revalue would price, one per first-order and two per second-order
    /// sensitivity family; here they share one simulation per path: ADR 0031).
    pub valuations: u64,
    /// Per-phase times, when asked for.
    pub phases: Option<PhaseTimes>,
}

/// Prices `job` (validated, with its simulation's paths, steps and seed) on `dev`'s default
/// stream: the price and, with `greeks`, every Greek of the spec with its standard error.
///
/// # Errors
/// [`BasketError::Invalid`] for a job [`BasketJob::validate`] refuses, or one whose
/// correlation vegas are undefined ([`Model::new`]); [`BasketError::Compute`] for the backend's
/// errors (an allocation the device cannot hold included).
pub fn price_basket<C: Compute + ?Sized>(dev: &C, job: &BasketJob, greeks: bool) -> Result<BasketOutcome, BasketError> {
    price_basket_with(dev, job, &BasketSettings { greeks, ..BasketSettings::default() })
}

/// [`price_basket`] with the estimator's settings.
///
/// # Errors
/// As [`price_basket`]; [`BasketError::Invalid`] naming `nbasis` or `gamma_bump` outside their
/// domains.
pub fn price_basket_with<C: Compute + ?Sized>(
    dev: &C,
    job: &BasketJob,
    settings: &BasketSettings,
) -> Result<BasketOutcome, BasketError> {
    price_basket_observed(dev, job, settings, &NoProgress)
}

/// [`price_basket_with`] reporting to `progress`: one step for the regression's paths, one per
/// exercise date of the backward induction, one for the valuation (steps are counted when
/// their work is enqueued: on an asynchronous device they run ahead of it).
///
/// # Errors
/// As [`price_basket_with`].
pub fn price_basket_observed<C: Compute + ?Sized>(
    dev: &C,
    job: &BasketJob,
    settings: &BasketSettings,
    progress: &dyn Progress,
) -> Result<BasketOutcome, BasketError> {
    job.validate()?;
    if !(1..=NBASIS).contains(&settings.nbasis) {
        return Err(BasketError::invalid("nbasis", format!("{}; must be 1 to {NBASIS}", settings.nbasis)));
    }
    if !(settings.gamma_bump > 0.0 && settings.gamma_bump < 0.5) {
        return Err(BasketError::invalid("gamma_bump", format!("{}; must be in (0, 0.5)", settings.gamma_bump)));
    }
    let greeks = settings.greeks;
    let nbasis = settings.nbasis;
    let mut clock = Clock::new(dev, settings.time_phases);
    let american = job.option.exercise == Exercise::American && job.simulation.steps > 1;
    let total = if american { u64::from(job.simulation.steps) + 1 } else { 0 } + 1;
    let steps_done = Steps::new(progress, total);
    let model = Model::new(job, greeks)?;
    let stream = dev.default_stream().clone();
    let sim = job.simulation;
    let (paths, steps) = (sim.paths, sim.steps);
    let n = job.n();
    let nassets = n as u32;
    let strike = job.option.strike;
    let sign = job.option.payoff.sign();
    let assets = dev.upload_slice(&stream, &model.assets)?;
    let factor = dev.upload_slice(&stream, &model.factor)?;
    let coef = never_exercise(dev, &stream, steps, nbasis)?;
    let (paths_s, backward_s, backward_enqueue_s, backward_launches) = if american {
        regress(dev, &stream, job, &model, &assets, &factor, &coef, settings, &steps_done, &mut clock)?
    } else {
        (clock.lap()?, 0.0, 0.0, 0)
    };

    progress.message("valuation paths");
    let (m1, m2, value_s) = if greeks {
        // One pass per path for every Greek: basket_sens writes basket_value's rows with Greeks
        // and its own after them.
        let vrows = value_rows(n);
        let rows = vrows + sens_rows(n);
        let contrib = dev.alloc_elems::<f64>(&stream, rows * paths as usize)?;
        let tangents = dev.upload_slice(&stream, &model.tangents)?;
        let dfactor = dev.upload_slice(&stream, &model.dfactor)?;
        BasketSens {
            contrib: &contrib,
            assets: &assets,
            tangents: &tangents,
            factor: &factor,
            dfactor: &dfactor,
            coef: &coef,
            seed: sim.seed,
            set: 1,
            paths,
            steps,
            nassets,
            nbasis,
            rows: rows as u32,
            strike,
            sign,
            rate: job.rate,
            dt: model.dt,
            bump: settings.gamma_bump,
            items: lane_items(paths, n),
        }
        .launch(dev, &stream)?;
        let mut m1 = moments(dev, &stream, &contrib, rows, paths)?;
        let m2 = m1.split_off(vrows);
        (m1, m2, 0.0)
    } else {
        let contrib = dev.alloc_elems::<f64>(&stream, paths as usize)?;
        BasketValue {
            contrib: &contrib,
            assets: &assets,
            factor: &factor,
            coef: &coef,
            seed: sim.seed,
            set: 1,
            paths,
            steps,
            nassets,
            nbasis,
            rows: 1,
            strike,
            sign,
            rate: job.rate,
            dt: model.dt,
            bump: settings.gamma_bump,
            items: lane_items(paths, n),
        }
        .launch(dev, &stream)?;
        let m1 = moments(dev, &stream, &contrib, 1, paths)?;
        (m1, Vec::new(), clock.lap()?)
    };
    steps_done.inc();
    let sens_s = clock.lap()?;
    progress.finish();
    let mut out = assemble(n, &m1, &m2, greeks);
    out.phases = settings.time_phases.then_some(PhaseTimes {
        paths_s,
        backward_s,
        backward_launches,
        backward_enqueue_s,
        value_s,
        sens_s,
    });
    Ok(out)
}

/// Phase timing: synchronises the device at each lap when on.
struct Clock<'a, C: Compute + ?Sized> {
    dev: &'a C,
    on: bool,
    at: std::time::Instant,
}

impl<'a, C: Compute + ?Sized> Clock<'a, C> {
    fn new(dev: &'a C, on: bool) -> Self {
        Self { dev, on, at: std::time::Instant::now() }
    }

    /// Seconds since the last lap (0 when off), after the device's work so far.
    fn lap(&mut self) -> Result<f64, BasketError> {
        if !self.on {
            return Ok(0.0);
        }
        self.dev.synchronize()?;
        let now = std::time::Instant::now();
        let s = now.duration_since(self.at).as_secs_f64();
        self.at = now;
        Ok(s)
    }
}

/// Coefficients that never exercise before the last date (`+inf, 0, ..` per date).
fn never_exercise<C: Compute + ?Sized>(
    dev: &C,
    stream: &Stream,
    steps: u32,
    nbasis: u32,
) -> Result<DeviceBuffer, BasketError> {
    let nb = nbasis as usize;
    let mut coef = vec![0.0f64; steps as usize * nb];
    for d in coef.chunks_exact_mut(nb) {
        d[0] = f64::INFINITY;
    }
    Ok(dev.upload_slice(stream, &coef)?)
}

/// The regression pass: fits every date's exercise rule into `coef` on path set 0. Returns the
/// `clock`'s laps after the paths and after the backward induction, the host's time to enqueue
/// the backward induction's launches and their number.
#[allow(clippy::too_many_arguments)]
fn regress<C: Compute + ?Sized>(
    dev: &C,
    stream: &Stream,
    job: &BasketJob,
    model: &Model,
    assets: &DeviceBuffer,
    factor: &DeviceBuffer,
    coef: &DeviceBuffer,
    settings: &BasketSettings,
    progress: &Steps<'_>,
    clock: &mut Clock<'_, C>,
) -> Result<(f64, f64, f64, u32), BasketError> {
    let sim = job.simulation;
    let nbasis = settings.nbasis;
    progress.sink().message("regression paths");
    let (paths, steps) = (sim.paths, sim.steps);
    let cells = paths as usize * steps as usize;
    let basket = dev.alloc_elems::<f64>(stream, cells)?;
    let feature = dev.alloc_elems::<f64>(stream, cells)?;
    BasketPaths {
        basket: &basket,
        feature: &feature,
        assets,
        factor,
        seed: sim.seed,
        set: 0,
        paths,
        steps,
        nassets: job.n() as u32,
        strike: job.option.strike,
        items: lane_items(paths, job.n()),
    }
    .launch(dev, stream)?;
    progress.inc();
    let paths_s = clock.lap()?;
    progress.sink().message("backward induction");
    let sign = job.option.payoff.sign();
    let factors = dev.alloc_elems::<f64>(stream, steps as usize * FACTOR_RECORD)?;
    BasketGram {
        factors: &factors,
        basket: &basket,
        feature: &feature,
        paths,
        steps,
        nbasis,
        strike: job.option.strike,
        sign,
        // One work-group of the manifest's block per date.
        items: u64::from(steps) * u64::from(BasketGram::BLOCK),
    }
    .launch(dev, stream)?;
    let nblocks = BasketBackward::blocks(paths);
    // Not initialised: the expiry date writes every path's cash before any date reads it (a
    // 200 KB upload for the baseline was a copy in the stream between two kernels).
    let cash = dev.alloc_elems::<f64>(stream, paths as usize)?;
    // Two halves of block sums (a date's and the date before's), each block's copy of the
    // date's coefficients and the grid barrier's counter (the kernel's manifest).
    let partials = dev.alloc_elems::<f64>(stream, 2 * SLOTS * nblocks as usize)?;
    let fits = dev.alloc_elems::<f64>(stream, MAX_BASIS * nblocks as usize)?;
    let sync = dev.upload_slice(stream, &[0u32])?;
    let backward = BasketBackward::load(dev)?;
    let df = (-job.rate * model.dt).exp();
    let launch = |step: u32, dates: u32| BasketBackward {
        partials: &partials,
        fits: &fits,
        cash: &cash,
        coef,
        sync: &sync,
        factors: &factors,
        basket: &basket,
        feature: &feature,
        paths,
        steps,
        step,
        dates,
        nbasis,
        strike: job.option.strike,
        sign,
        df,
    };
    // Every date in one launch where all its blocks run at once (the counter's waits end at
    // blocks x dates, which must fit in u32).
    let at_once = settings.cooperative
        && dev.resident_blocks(&backward)?.is_some_and(|resident| nblocks <= resident)
        && nblocks.saturating_mul(u64::from(steps)) <= u64::from(u32::MAX);
    let enqueue = std::time::Instant::now();
    let launches = if at_once {
        let all = launch(steps - 1, steps);
        dev.launch_cooperative(stream, &backward, all.items(), &all.args())?;
        for _ in 0..steps {
            progress.inc();
        }
        1
    } else {
        for s in (0..steps).rev() {
            launch(s, 1).launch_loaded(dev, stream, &backward)?;
            progress.inc();
        }
        steps
    };
    let enqueue_s = enqueue.elapsed().as_secs_f64();
    Ok((paths_s, clock.lap()?, enqueue_s, launches))
}

/// Mean and standard error of each of `rows` rows of per-path values: `basket_moments` sums
/// chunks of [`MOMENT_CHUNK`] paths on the device, the host adds the chunks in order.
fn moments<C: Compute + ?Sized>(
    dev: &C,
    stream: &Stream,
    values: &DeviceBuffer,
    rows: usize,
    paths: u64,
) -> Result<Vec<(f64, f64)>, BasketError> {
    let chunks = paths.div_ceil(MOMENT_CHUNK) as usize;
    let items = (rows * chunks) as u64;
    let out = dev.alloc_elems::<f64>(stream, 2 * rows * chunks)?;
    BasketMoments { out: &out, values, rows: rows as u32, paths, chunk: MOMENT_CHUNK, items }.launch(dev, stream)?;
    let sums = dev.download_vec::<f64>(stream, &out)?;
    let nf = paths as f64;
    Ok((0..rows)
        .map(|r| {
            let (mut s1, mut s2) = (0.0f64, 0.0f64);
            for c in 0..chunks {
                s1 += sums[2 * (r * chunks + c)];
                s2 += sums[2 * (r * chunks + c) + 1];
            }
            let mean = s1 / nf;
            let var = ((s2 - s1 * mean) / (nf - 1.0)).max(0.0);
            (mean, (var / nf).sqrt())
        })
        .collect())
}

/// The output rows in the spec's order from `basket_value`'s (`m1`) and `basket_sens`'s (`m2`)
/// estimates.
fn assemble(n: usize, m1: &[(f64, f64)], m2: &[(f64, f64)], greeks: bool) -> BasketOutcome {
    let row = |greek, asset, other, (value, se): (f64, f64)| GreekRow { greek, asset, other, value, stderr: Some(se) };
    let mut rows = vec![row("price", None, None, m1[0])];
    if !greeks {
        return BasketOutcome { rows, valuations: 1, phases: None };
    }
    let pairs: Vec<(usize, usize)> = (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect();
    for i in 0..n {
        rows.push(row("delta", Some(i), None, m1[1 + i]));
    }
    for i in 0..n {
        rows.push(row("gamma", Some(i), None, m1[1 + n + i]));
    }
    for (k, &(i, j)) in pairs.iter().enumerate() {
        rows.push(row("cross_gamma", Some(i), Some(j), m1[1 + 2 * n + k]));
    }
    for (q, name) in ["vega", "model_vega_kappa", "model_vega_theta", "model_vega_xi"].into_iter().enumerate() {
        for i in 0..n {
            rows.push(row(name, Some(i), None, m2[q * n + i]));
        }
    }
    for (k, &(i, j)) in pairs.iter().enumerate() {
        rows.push(row("correlation_vega", Some(i), Some(j), m2[4 * n + k]));
    }
    rows.push(row("rho", None, None, m1[m1.len() - 1]));
    rows.push(row("theta", None, None, m2[m2.len() - 1]));
    let valuations = (1 + 2 * n + 4 * n + pairs.len() + 2) as u64;
    BasketOutcome { rows, valuations, phases: None }
}
