//! Allocation traces from Tenor's own pricing kernels.
//!
//! [`run_pricing`] runs a small desk of Monte Carlo jobs (the fused antithetic European kernel
//! `mc_european`, and GBM paths + European payoff + reduction) on any [`Compute`], each job in
//! its own [`JobScope`], jobs spread round-robin over streams, with a portfolio of spots
//! uploaded once and kept. Built with `Device::with_allocator(driver, Arc::new(Recorder::new(..)))`,
//! the recorder's trace is the run's allocation trace.

use tenor_core::{Access, Arg, Compute, ComputeError, ComputeExt, Stream};

use crate::job::JobScope;

/// Shape of the pricing run.
#[derive(Debug, Clone, Copy)]
pub struct PricingRun {
    /// Jobs.
    pub jobs: usize,
    /// Streams.
    pub streams: usize,
    /// Antithetic pairs (fused kernel) or paths (path kernels) per job.
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

/// Prices `run.jobs` European calls (strikes 80..120) and returns them.
///
/// # Errors
/// Any device error.
pub fn run_pricing(dev: &dyn Compute, run: &PricingRun) -> Result<Vec<Priced>, ComputeError> {
    let streams: Vec<Stream> = (0..run.streams.max(1)).map(|_| dev.create_stream()).collect::<Result<_, _>>()?;
    let fused = dev.load_kernel(tenor_kernels::get("mc_european")?)?;
    let gbm = dev.load_kernel(tenor_kernels::get("gbm_paths")?)?;
    let payoff = dev.load_kernel(tenor_kernels::get("payoff_european")?)?;
    let reduce = dev.load_kernel(tenor_kernels::get("reduce_sum_sumsq")?)?;
    let portfolio: Vec<f64> = (0..run.jobs).map(|j| 80.0 + 40.0 * j as f64 / run.jobs.max(1) as f64).collect();
    let strikes = dev.upload_slice(&streams[0], &portfolio)?;
    let discount = (-RATE * MATURITY).exp();
    let mut out = Vec::with_capacity(run.jobs);
    for (j, &strike) in portfolio.iter().enumerate() {
        let job = j as u64 + 1;
        let _scope = JobScope::enter(job);
        let s = &streams[j % streams.len()];
        let n = run.paths;
        let (price, std_error) = if j % 2 == 0 {
            let blocks = n.div_ceil(u64::from(fused.def().launch.block));
            let partials = dev.alloc_elems::<f64>(s, 2 * blocks as usize)?;
            let t = MATURITY;
            dev.launch(
                s,
                &fused,
                n,
                &[
                    Arg::Buf(&partials, Access::Write),
                    Arg::U64(job),
                    Arg::U64(n),
                    Arg::F64(SPOT),
                    Arg::F64(strike),
                    Arg::U32(1),
                    Arg::F64((RATE - 0.5 * VOL * VOL) * t),
                    Arg::F64(VOL * t.sqrt()),
                    Arg::F64(discount),
                ],
            )?;
            mean_and_error(&dev.download_vec::<f64>(s, &partials)?, n as f64)
        } else {
            let steps = run.steps.max(1);
            let dt = MATURITY / f64::from(steps);
            let paths = dev.alloc_elems::<f64>(s, (n * u64::from(steps)) as usize)?;
            dev.launch(
                s,
                &gbm,
                n,
                &[
                    Arg::Buf(&paths, Access::Write),
                    Arg::U64(job),
                    Arg::U64(n),
                    Arg::U32(steps),
                    Arg::F64(SPOT),
                    Arg::F64((RATE - 0.5 * VOL * VOL) * dt),
                    Arg::F64(VOL * dt.sqrt()),
                ],
            )?;
            let pay = dev.alloc_elems::<f64>(s, n as usize)?;
            dev.launch(
                s,
                &payoff,
                n,
                &[
                    Arg::Buf(&paths, Access::Read),
                    Arg::Buf(&pay, Access::Write),
                    Arg::U64(n),
                    Arg::U32(steps),
                    Arg::F64(strike),
                    Arg::U32(1),
                    Arg::F64(discount),
                ],
            )?;
            drop(paths);
            let blocks = n.div_ceil(u64::from(reduce.def().launch.block));
            let partials = dev.alloc_elems::<f64>(s, 2 * blocks as usize)?;
            dev.launch(
                s,
                &reduce,
                n,
                &[Arg::Buf(&pay, Access::Read), Arg::Buf(&partials, Access::Write), Arg::U64(n)],
            )?;
            mean_and_error(&dev.download_vec::<f64>(s, &partials)?, n as f64)
        };
        out.push(Priced { job, strike, price, std_error });
    }
    drop(strikes);
    dev.synchronize()?;
    Ok(out)
}
