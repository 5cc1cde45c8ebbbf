//! Calibration of the Heston model to a list of option quotes by Levenberg-Marquardt
//! (Levenberg 1944, Marquardt 1963; damping update of Nielsen 1999) with a forward-difference
//! Jacobian. Every iteration prices the whole chain at the five bumped parameter sets in one
//! launch of the `heston_price` kernel on the `Compute` port ([`super::batch`]; the residuals
//! at the current parameters are those of the last accepted trial point), then each trial
//! point in one launch; the 5 x 5 normal equations are solved on the host with nalgebra.
//! [`calibrate_heston_host`] runs the same iterations with the adaptive host pricer
//! ([`super::heston_price`]) in parallel with rayon instead: the reference, and the timing
//! baseline of the port path.
//!
//! The parameters are optimised in unconstrained coordinates, `v0, kappa, theta, sigma = e^y`
//! and `rho = tanh(y)`, so every trial point is admissible.

use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;

use tenor_ports::{Compute, Devices};

use super::batch::{heston_prices_batch, DEFAULT_NODES};
use super::{heston_price, HestonError, HestonOption, HestonParams};

/// One market quote: a European option (contract with its own forward through `rate` and
/// `dividend`) and its price.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quote {
    /// The contract, with the rate and dividend yield that reproduce the quote's discount
    /// factor and forward.
    pub contract: HestonOption,
    /// Market price (present value, currency units), e.g. the mid quote.
    pub price: f64,
    /// Residual weight (1 for price errors; `1 / vega` approximates implied-vol errors).
    pub weight: f64,
}

/// Levenberg-Marquardt settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CalibrationConfig {
    /// Starting parameters.
    pub initial: HestonParams,
    /// Maximum iterations (Jacobian evaluations).
    pub max_iterations: usize,
    /// Stop when the relative decrease of the cost is below this.
    pub tolerance: f64,
    /// Gauss-Legendre nodes of the kernel's quadrature (port path only; see
    /// [`tenor_kernels::heston`] for the accuracy of [`DEFAULT_NODES`]).
    pub nodes: usize,
}

impl Default for CalibrationConfig {
    /// Start at v0 = theta = 0.04, kappa = 1.5, sigma = 0.5, rho = -0.5; 100 iterations;
    /// tolerance 1e-12; [`DEFAULT_NODES`] quadrature nodes.
    fn default() -> Self {
        Self {
            initial: HestonParams { v0: 0.04, kappa: 1.5, theta: 0.04, sigma: 0.5, rho: -0.5 },
            max_iterations: 100,
            tolerance: 1e-12,
            nodes: DEFAULT_NODES,
        }
    }
}

/// Fit of one quote.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuoteFit {
    /// The quote.
    pub quote: Quote,
    /// Model price at the calibrated parameters.
    pub model: f64,
    /// `model - market`.
    pub error: f64,
}

/// Calibration outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct CalibrationResult {
    /// Calibrated parameters.
    pub params: HestonParams,
    /// Per-quote fit, in the order of the input.
    pub fits: Vec<QuoteFit>,
    /// Root-mean-square of the weighted residuals.
    pub rmse: f64,
    /// Iterations done.
    pub iterations: usize,
    /// Model pricings done.
    pub pricings: usize,
    /// Pricing batches (kernel launches on the port path).
    pub batches: usize,
    /// Why the iterations stopped.
    pub stop: Stop,
}

/// Why a Levenberg-Marquardt calibration stopped (Madsen, Nielsen and Tingleff, "Methods for
/// non-linear least squares problems", 2004, section 3.2: the damping update used here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// An accepted step lowered the cost by less than the relative tolerance.
    Converged,
    /// No step lowered the cost after 20 increases of the damping, or the cost reached zero:
    /// a (local) minimum to the precision of the pricer.
    Stalled,
    /// `max_iterations` iterations were done with the cost still falling: the fit may improve
    /// with more iterations.
    IterationLimit,
}

impl Stop {
    /// A short lower-case name (`converged`, `stalled`, `iteration limit`) for reports.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Stop::Converged => "converged",
            Stop::Stalled => "stalled",
            Stop::IterationLimit => "iteration limit",
        }
    }
}

fn to_y(p: &HestonParams) -> [f64; 5] {
    [p.v0.ln(), p.kappa.ln(), p.theta.ln(), p.sigma.ln(), p.rho.atanh()]
}

fn from_y(y: &[f64]) -> HestonParams {
    HestonParams { v0: y[0].exp(), kappa: y[1].exp(), theta: y[2].exp(), sigma: y[3].exp(), rho: y[4].tanh() }
}

fn validate_quotes(quotes: &[Quote]) -> Result<(), HestonError> {
    if quotes.is_empty() {
        return Err(HestonError::BadQuote { index: 0, reason: "no quotes".into() });
    }
    for (i, q) in quotes.iter().enumerate() {
        q.contract.validate().map_err(|e| HestonError::BadQuote { index: i, reason: e.to_string() })?;
        if !(q.price.is_finite() && q.price >= 0.0) {
            return Err(HestonError::BadQuote {
                index: i,
                reason: format!("price {} must be finite and >= 0", q.price),
            });
        }
        if !(q.weight.is_finite() && q.weight > 0.0) {
            return Err(HestonError::BadQuote {
                index: i,
                reason: format!("weight {} must be finite and > 0", q.weight),
            });
        }
    }
    Ok(())
}

/// Weighted residuals `w (model - market)` of every quote for each parameter vector in `ys`,
/// priced in one parallel batch on the host (rayon, adaptive pricer).
fn residual_batch_host(ys: &[[f64; 5]], quotes: &[Quote]) -> Result<Vec<Vec<f64>>, HestonError> {
    let nq = quotes.len();
    let flat: Result<Vec<f64>, HestonError> = (0..ys.len() * nq)
        .into_par_iter()
        .map(|idx| {
            let (set, qi) = (idx / nq, idx % nq);
            let q = &quotes[qi];
            Ok(q.weight * (heston_price(&from_y(&ys[set]), &q.contract)? - q.price))
        })
        .collect();
    Ok(flat?.chunks(nq).map(<[f64]>::to_vec).collect())
}

/// The same residuals from one `heston_price` launch on `dev` (all sets, all quotes).
fn residual_batch_port<C: Compute + ?Sized>(
    dev: &C,
    ys: &[[f64; 5]],
    quotes: &[Quote],
    nodes: usize,
) -> Result<Vec<Vec<f64>>, HestonError> {
    let nq = quotes.len();
    let sets: Vec<HestonParams> = ys.iter().map(|y| from_y(y)).collect();
    let options: Vec<HestonOption> = quotes.iter().map(|q| q.contract).collect();
    let prices = heston_prices_batch(dev, &options, &sets, nodes)?;
    Ok(prices.chunks(nq).map(|c| c.iter().zip(quotes).map(|(p, q)| q.weight * (p - q.price)).collect()).collect())
}

/// Calibrates Heston parameters to `quotes`, pricing on `dev` (the `heston_price` kernel).
///
/// # Errors
/// [`HestonError::BadQuote`] naming the first bad quote; [`HestonError::InvalidParameter`]
/// for a bad starting point or node count; pricing and backend errors.
pub fn calibrate_heston<C: Compute + ?Sized>(
    dev: &C,
    quotes: &[Quote],
    cfg: &CalibrationConfig,
) -> Result<CalibrationResult, HestonError> {
    calibrate_heston_observed(dev, quotes, cfg, &mut |_, _| {})
}

/// [`calibrate_heston`] calling `observer(iteration, rmse)` after every accepted step (for
/// progress bars).
///
/// # Errors
/// As [`calibrate_heston`].
pub fn calibrate_heston_observed<C: Compute + ?Sized>(
    dev: &C,
    quotes: &[Quote],
    cfg: &CalibrationConfig,
    observer: &mut dyn FnMut(usize, f64),
) -> Result<CalibrationResult, HestonError> {
    validate_quotes(quotes)?;
    let nodes = cfg.nodes;
    levenberg_marquardt(quotes, cfg, observer, &mut |ys| residual_batch_port(dev, ys, quotes, nodes))
}

/// The same residuals with the quotes split over every device of `devices` (equal cost per
/// quote: the quadrature has the same nodes for each), one `heston_price` launch per device for
/// its quotes under all sets, all devices at once. Each price depends only on its quote and
/// parameter set, so the residuals are bitwise those of one device.
fn residual_batch_sharded(
    devices: &Devices,
    ys: &[[f64; 5]],
    quotes: &[Quote],
    nodes: usize,
) -> Result<Vec<Vec<f64>>, HestonError> {
    let sets: Vec<HestonParams> = ys.iter().map(|y| from_y(y)).collect();
    let (per_quote, _) = devices.map_sharded(&vec![1.0; quotes.len()], |dev, shard| {
        let options: Vec<HestonOption> = shard.iter().map(|i| quotes[*i].contract).collect();
        match heston_prices_batch(dev, &options, &sets, nodes) {
            // Prices are set-major: set s's price of the shard's k-th quote is at s * len + k.
            Ok(prices) => {
                (0..shard.len()).map(|k| Ok((0..sets.len()).map(|s| prices[s * shard.len() + k]).collect())).collect()
            }
            Err(e) => shard.iter().map(|_| Err(e.clone())).collect::<Vec<Result<Vec<f64>, HestonError>>>(),
        }
    })?;
    let per_quote: Vec<Vec<f64>> = per_quote.into_iter().collect::<Result<_, _>>()?;
    Ok((0..sets.len())
        .map(|s| per_quote.iter().zip(quotes).map(|(p, q)| q.weight * (p[s] - q.price)).collect())
        .collect())
}

/// [`calibrate_heston_observed`] with every iteration's pricings split over the devices of
/// `devices` by quote ([`Devices::map_sharded`]): the same fit, bitwise, on 1, 2 or N devices.
///
/// # Errors
/// As [`calibrate_heston`]; a device's worker that panicked as [`HestonError::Compute`].
pub fn calibrate_heston_sharded(
    devices: &Devices,
    quotes: &[Quote],
    cfg: &CalibrationConfig,
    observer: &mut dyn FnMut(usize, f64),
) -> Result<CalibrationResult, HestonError> {
    validate_quotes(quotes)?;
    let nodes = cfg.nodes;
    levenberg_marquardt(quotes, cfg, observer, &mut |ys| residual_batch_sharded(devices, ys, quotes, nodes))
}

/// Calibrates with the adaptive host pricer, every batch in parallel with rayon (the
/// reference for [`calibrate_heston`]; `cfg.nodes` is not used).
///
/// # Errors
/// As [`calibrate_heston`].
pub fn calibrate_heston_host(quotes: &[Quote], cfg: &CalibrationConfig) -> Result<CalibrationResult, HestonError> {
    validate_quotes(quotes)?;
    levenberg_marquardt(quotes, cfg, &mut |_, _| {}, &mut |ys| residual_batch_host(ys, quotes))
}

type Residuals<'a> = dyn FnMut(&[[f64; 5]]) -> Result<Vec<Vec<f64>>, HestonError> + 'a;

fn first(mut v: Vec<Vec<f64>>) -> Result<Vec<f64>, HestonError> {
    v.pop().ok_or_else(|| HestonError::BadQuote { index: 0, reason: "no residuals".into() })
}

fn levenberg_marquardt(
    quotes: &[Quote],
    cfg: &CalibrationConfig,
    observer: &mut dyn FnMut(usize, f64),
    residuals: &mut Residuals<'_>,
) -> Result<CalibrationResult, HestonError> {
    cfg.initial.validate()?;
    let nq = quotes.len();
    let cost = |r: &[f64]| r.iter().map(|x| x * x).sum::<f64>();
    let mut y = to_y(&cfg.initial);
    let mut r = first(residuals(&[y])?)?;
    let mut c = cost(&r);
    let mut pricings = nq;
    let mut batches = 1;
    let mut lambda = 1e-3;
    let mut nu = 2.0;
    let mut iterations = 0;
    while iterations < cfg.max_iterations {
        iterations += 1;
        // Forward-difference Jacobian: the five bumped parameter sets priced in one batch.
        let h: Vec<f64> = y.iter().map(|v| 1e-6 * v.abs().max(1.0)).collect();
        let bumped: Vec<[f64; 5]> = (0..5)
            .map(|j| {
                let mut b = y;
                b[j] += h[j];
                b
            })
            .collect();
        let rb = residuals(&bumped)?;
        pricings += 5 * nq;
        batches += 1;
        let jac = DMatrix::from_fn(nq, 5, |i, j| (rb[j][i] - r[i]) / h[j]);
        let jtj = jac.transpose() * &jac;
        let g = jac.transpose() * DVector::from_column_slice(&r);
        // Inner loop: raise the damping until a step lowers the cost.
        let mut improved = false;
        for _ in 0..20 {
            let mut a = jtj.clone();
            for k in 0..5 {
                a[(k, k)] += lambda * jtj[(k, k)].max(1e-12);
            }
            let Some(step) = a.cholesky().map(|ch| ch.solve(&(-&g))) else {
                lambda *= nu;
                nu *= 2.0;
                continue;
            };
            let mut yt = y;
            for k in 0..5 {
                yt[k] += step[k].clamp(-2.0, 2.0);
            }
            // Keep rho away from +-1 where atanh is singular.
            yt[4] = yt[4].clamp(-4.0, 4.0);
            // A trial point the pricer cannot handle counts as a failed step.
            let rt = residuals(&[yt]).and_then(first).unwrap_or_else(|_| vec![f64::NAN; nq]);
            pricings += nq;
            batches += 1;
            let ct = cost(&rt);
            if ct < c {
                let rel = (c - ct) / c.max(1e-300);
                y = yt;
                r = rt;
                c = ct;
                lambda = (lambda / 3.0).max(1e-12);
                nu = 2.0;
                improved = true;
                observer(iterations, (c / nq as f64).sqrt());
                if rel < cfg.tolerance {
                    return Ok(finish(y, &r, quotes, Counts { iterations, pricings, batches }, Stop::Converged));
                }
                break;
            }
            lambda *= nu;
            nu *= 2.0;
        }
        if !improved || c < 1e-28 {
            return Ok(finish(y, &r, quotes, Counts { iterations, pricings, batches }, Stop::Stalled));
        }
    }
    Ok(finish(y, &r, quotes, Counts { iterations, pricings, batches }, Stop::IterationLimit))
}

/// Work done by a calibration.
struct Counts {
    iterations: usize,
    pricings: usize,
    batches: usize,
}

fn finish(y: [f64; 5], r: &[f64], quotes: &[Quote], n: Counts, stop: Stop) -> CalibrationResult {
    let fits = quotes
        .iter()
        .zip(r)
        .map(|(q, ri)| {
            let error = ri / q.weight;
            QuoteFit { quote: *q, model: q.price + error, error }
        })
        .collect();
    let rmse = (r.iter().map(|x| x * x).sum::<f64>() / r.len() as f64).sqrt();
    let Counts { iterations, pricings, batches } = n;
    CalibrationResult { params: from_y(&y), fits, rmse, iterations, pricings, batches, stop }
}
