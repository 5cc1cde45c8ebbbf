//! Heston Monte Carlo with Andersen's (2008) quadratic-exponential scheme on the `Compute`
//! port: the `heston_qe` kernel simulates terminal spots (one work item per path), the host
//! evaluates payoffs and the sample mean and standard error.

use tenor_kernels::typed::HestonQe;
use tenor_ports::{Compute, ComputeExt};

use super::{HestonError, HestonOption, HestonParams};

/// Monte Carlo settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QeConfig {
    /// Number of paths.
    pub paths: u64,
    /// Time steps per year (the step count is `max(min_steps, ceil(T steps_per_year))`).
    pub steps_per_year: f64,
    /// Minimum number of time steps.
    pub min_steps: u32,
    /// Philox seed.
    pub seed: u64,
}

impl Default for QeConfig {
    /// 100 000 paths, 32 steps per year, at least 8 steps, seed 1.
    fn default() -> Self {
        Self { paths: 100_000, steps_per_year: 32.0, min_steps: 8, seed: 1 }
    }
}

/// Monte Carlo estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QeResult {
    /// Present value estimate.
    pub price: f64,
    /// Standard error of `price`.
    pub std_error: f64,
    /// Time steps used.
    pub steps: u32,
}

/// Simulated terminal spots of `paths` paths to `o.maturity` (the contract's strike and type
/// are not used), through the `heston_qe` kernel on `dev`.
///
/// # Errors
/// Parameter errors; backend errors as [`HestonError::Compute`].
pub fn heston_qe_terminal<C: Compute + ?Sized>(
    dev: &C,
    p: &HestonParams,
    o: &HestonOption,
    cfg: &QeConfig,
) -> Result<(Vec<f64>, u32), HestonError> {
    p.validate()?;
    o.validate()?;
    if cfg.paths == 0 {
        return Err(HestonError::InvalidParameter { name: "paths", value: 0.0, reason: "must be > 0" });
    }
    if !(cfg.steps_per_year.is_finite() && cfg.steps_per_year > 0.0) {
        return Err(HestonError::InvalidParameter {
            name: "steps_per_year",
            value: cfg.steps_per_year,
            reason: "must be finite and > 0",
        });
    }
    let steps = ((o.maturity * cfg.steps_per_year).ceil() as u32).max(cfg.min_steps).max(1);
    let dt = o.maturity / f64::from(steps);
    let stream = dev.default_stream().clone();
    let out = dev.alloc_elems::<f64>(&stream, cfg.paths as usize)?;
    HestonQe {
        out: &out,
        seed: cfg.seed,
        paths: cfg.paths,
        steps,
        spot: o.spot,
        drift_dt: (o.rate - o.dividend) * dt,
        dt,
        v0: p.v0,
        kappa: p.kappa,
        theta: p.theta,
        sigma: p.sigma.max(super::SIGMA_FLOOR),
        rho: p.rho,
    }
    .launch(dev, &stream)?;
    Ok((dev.download_vec::<f64>(&stream, &out)?, steps))
}

/// Monte Carlo price of the European option `o` under `p`.
///
/// # Errors
/// As [`heston_qe_terminal`].
pub fn heston_qe_price<C: Compute + ?Sized>(
    dev: &C,
    p: &HestonParams,
    o: &HestonOption,
    cfg: &QeConfig,
) -> Result<QeResult, HestonError> {
    let (spots, steps) = heston_qe_terminal(dev, p, o, cfg)?;
    let df = o.discount();
    let (mut s1, mut s2) = (0.0, 0.0);
    for &s in &spots {
        let x = df * o.option.payoff(s, o.strike);
        s1 += x;
        s2 += x * x;
    }
    let n = spots.len() as f64;
    let mean = s1 / n;
    let var = (s2 / n - mean * mean).max(0.0) * n / (n - 1.0).max(1.0);
    Ok(QeResult { price: mean, std_error: (var / n).sqrt(), steps })
}
