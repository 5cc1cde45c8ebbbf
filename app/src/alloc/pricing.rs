//! Allocation traces from Tenor's own pricing kernels.
//!
//! [`run_pricing`] runs a small desk of Monte Carlo European calls on any [`Compute`], each job
//! in its own [`JobScope`], jobs spread round-robin over streams, with the strikes uploaded once
//! and kept for the whole run. Each job generates its normals on the device with
//! `philox_normals` (one step for terminal-value jobs, `steps` steps for path jobs), checks
//! their moments with `reduce_sum_sumsq`, and prices on the host from the downloaded normals
//! (antithetic terminal values; GBM's exact log-step sum for path jobs). Built with
//! `tenor_registry::open_over("cpu", Arc::new(Recorder::new(..)))`, the recorder's trace is the
//! run's allocation trace.

use tenor_kernels::typed::{PhiloxNormals, ReduceSumSumsq};
use tenor_ports::{Compute, ComputeError, ComputeExt, Stream};

use tenor_alloc::JobScope;

/// Shape of the pricing run.
#[derive(Debug, Clone, Copy)]
pub struct PricingRun {
    /// Jobs.
    pub jobs: usize,
    /// Streams.
    pub streams: usize,
    /// Paths per job (antithetic pairs for terminal-value jobs).
    pub paths: u64,
    /// Time steps of the path jobs.
    pub steps: u32,
}

impl Default for PricingRun {
    fn default() -> Self {
        Self { jobs: 24, streams: 3, paths: 1 << 14, steps: 8 }
    }
}

/// One priced option: spot 100, rate 5 %, no dividend, volatility 20 %, maturity 1 year.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Priced {
    /// Job id.
    pub job: u64,
    /// Strike.
    pub strike: f64,
    /// Monte Carlo price of the call.
    pub price: f64,
    /// Standard error of the price.
    pub std_error: f64,
}

/// Market of the run.
pub const SPOT: f64 = 100.0;
/// Risk-free rate.
pub const RATE: f64 = 0.05;
/// Volatility.
pub const VOL: f64 = 0.2;
/// Maturity in years.
pub const MATURITY: f64 = 1.0;

fn mean_and_error(partials: &[f64], n: f64) -> (f64, f64) {
    let (s, s2) = partials.chunks_exact(2).fold((0.0, 0.0), |(a, b), p| (a + p[0], b + p[1]));
    let mean = s / n;
    let var = (s2 / n - mean * mean).max(0.0);
    (mean, (var / n).sqrt())
}

/// Discounted call payoff.
fn call(s: f64, k: f64, discount: f64) -> f64 {
    discount * (s - k).max(0.0)
}

/// Prices `run.jobs` European calls (strikes 80..120) and returns them.
///
/// # Errors
/// Any device error; [`ComputeError::InvalidArgument`] when the device's normals have a mean
/// or variance far from N(0, 1) (more than 6 standard errors).
pub fn run_pricing(dev: &dyn Compute, run: &PricingRun) -> Result<Vec<Priced>, ComputeError> {
    let streams: Vec<Stream> = (0..run.streams.max(1)).map(|_| dev.create_stream()).collect::<Result<_, _>>()?;
    let normals = PhiloxNormals::load(dev)?;
    let reduce = ReduceSumSumsq::load(dev)?;
    let portfolio: Vec<f64> = (0..run.jobs).map(|j| 80.0 + 40.0 * j as f64 / run.jobs.max(1) as f64).collect();
    let strikes = dev.upload_slice(&streams[0], &portfolio)?;
    let discount = (-RATE * MATURITY).exp();
    let mut out = Vec::with_capacity(run.jobs);
    for (j, &strike) in portfolio.iter().enumerate() {
        let job = j as u64 + 1;
        let _scope = JobScope::enter(job);
        let s = &streams[j % streams.len()];
        let n = run.paths;
        let steps = if j % 2 == 0 { 1 } else { run.steps.max(1) };
        let count = (n * u64::from(steps)) as usize;
        let z = dev.alloc_elems::<f64>(s, count)?;
        PhiloxNormals { out: &z, seed: job, path_offset: 0, paths: n, steps }.launch_loaded(dev, s, &normals)?;
        let blocks = (count as u64).div_ceil(u64::from(ReduceSumSumsq::BLOCK));
        let partials = dev.alloc_elems::<f64>(s, 2 * blocks as usize)?;
        ReduceSumSumsq { x: &z, partials: &partials, n: count as u64 }.launch_loaded(dev, s, &reduce)?;
        let (mean, se) = mean_and_error(&dev.download_vec::<f64>(s, &partials)?, count as f64);
        if mean.abs() > 6.0 * se.max(1e-12) {
            return Err(ComputeError::InvalidArgument(format!(
                "job {job}: device normals have mean {mean} (standard error {se})"
            )));
        }
        let zs = dev.download_vec::<f64>(s, &z)?;
        drop((z, partials));
        let pays: Vec<f64> = if steps == 1 {
            let (drift, vol) = ((RATE - 0.5 * VOL * VOL) * MATURITY, VOL * MATURITY.sqrt());
            zs.iter()
                .map(|&x| {
                    0.5 * (call(SPOT * (drift + vol * x).exp(), strike, discount)
                        + call(SPOT * (drift - vol * x).exp(), strike, discount))
                })
                .collect()
        } else {
            let dt = MATURITY / f64::from(steps);
            let (drift, vol) = ((RATE - 0.5 * VOL * VOL) * dt, VOL * dt.sqrt());
            (0..n as usize)
                .map(|p| {
                    let log: f64 = (0..steps as usize).map(|k| drift + vol * zs[k * n as usize + p]).sum();
                    call(SPOT * log.exp(), strike, discount)
                })
                .collect()
        };
        let m = pays.len() as f64;
        let price = pays.iter().sum::<f64>() / m;
        let var = pays.iter().map(|p| (p - price) * (p - price)).sum::<f64>() / (m - 1.0).max(1.0);
        out.push(Priced { job, strike, price, std_error: (var / m).sqrt() });
    }
    drop(strikes);
    dev.synchronize()?;
    Ok(out)
}
