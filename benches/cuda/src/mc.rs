//! Monte Carlo pricing of one option through the fused kernels, on any backend, and the
//! host-side reduction of the per-block partial sums (in block order, so the result depends
//! only on the device's per-block sums).

use tenor_kernels::typed::{McAsian, McBarrier, McEuropean};
use tenor_ports::{Compute, ComputeError, ComputeExt, Stream};

/// What to price.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Product {
    /// European option.
    European,
    /// Fixed-strike Asian on the arithmetic average of `fixings` dates T j / n.
    AsianArith(u32),
    /// Fixed-strike Asian on the geometric average of `fixings` dates T j / n.
    AsianGeo(u32),
    /// Barrier option; `kind` 0 down_out, 1 down_in, 2 up_out, 3 up_in; `fixings` `None`:
    /// continuous monitoring (Brownian bridge on `steps` steps).
    Barrier {
        /// Barrier level.
        barrier: f64,
        /// Kind code of the kernel.
        kind: u32,
        /// Cash rebate.
        rebate: f64,
        /// Discrete monitoring dates, or `None` for continuous.
        fixings: Option<u32>,
    },
}

/// Market and contract data of one option (Black-Scholes dynamics).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contract {
    /// Product.
    pub product: Product,
    /// Call (true) or put.
    pub call: bool,
    /// Spot.
    pub spot: f64,
    /// Strike.
    pub strike: f64,
    /// Maturity in years.
    pub maturity: f64,
    /// Continuously compounded rate.
    pub rate: f64,
    /// Continuous dividend yield.
    pub dividend: f64,
    /// Volatility.
    pub vol: f64,
}

/// Steps used for continuously monitored barriers (the bridge corrects between them).
pub const BARRIER_STEPS: u32 = 64;

/// A Monte Carlo estimate: price and standard error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Mean of the pair values.
    pub price: f64,
    /// Standard error of the mean.
    pub stderr: f64,
}

fn stats(sum: f64, sum_sq: f64, n: f64) -> Estimate {
    let mean = sum / n;
    Estimate { price: mean, stderr: ((sum_sq / n - mean * mean).max(0.0) / n).sqrt() }
}

/// Prices `c` with `pairs` antithetic pairs from `seed` on `dev`, stream `s`, in fp64.
///
/// # Errors
/// Backend errors.
pub fn price(dev: &dyn Compute, s: &Stream, c: &Contract, pairs: u64, seed: u64) -> Result<Estimate, ComputeError> {
    let w = u32::from(c.call);
    let drift_rate = c.rate - c.dividend - 0.5 * c.vol * c.vol;
    let discount = (-c.rate * c.maturity).exp();
    // `width` partial sums per block of the kernel.
    let partials_for = |width: usize, blocks: u64| dev.alloc_elems::<f64>(s, width * blocks as usize);
    let (width, out) = match c.product {
        Product::European => {
            let out = partials_for(2, McEuropean::blocks(pairs))?;
            McEuropean {
                partials: &out,
                seed,
                pairs,
                spot: c.spot,
                strike: c.strike,
                is_call: w,
                drift: drift_rate * c.maturity,
                vol_sqrt_t: c.vol * c.maturity.sqrt(),
                discount,
            }
            .launch(dev, s)?;
            (2, out)
        }
        Product::AsianArith(n) | Product::AsianGeo(n) => {
            let dt = c.maturity / f64::from(n);
            let (d, v) = (drift_rate * dt, c.vol * dt.sqrt());
            let out = partials_for(5, McAsian::blocks(pairs))?;
            McAsian {
                partials: &out,
                seed,
                pairs,
                steps: n,
                spot: c.spot,
                strike: c.strike,
                is_call: w,
                spot_fixing: 0,
                drift_first: d,
                vol_first: v,
                drift_dt: d,
                vol_sqrt_dt: v,
                discount,
            }
            .launch(dev, s)?;
            (5, out)
        }
        Product::Barrier { barrier, kind, rebate, fixings } => {
            let breached = if kind < 2 { c.spot <= barrier } else { c.spot >= barrier };
            if breached {
                // Knock-out: the rebate now; knock-in: the vanilla option.
                if kind & 1 == 0 {
                    return Ok(Estimate { price: rebate, stderr: 0.0 });
                }
                let vanilla = Contract { product: Product::European, ..*c };
                return price(dev, s, &vanilla, pairs, seed);
            }
            let steps = fixings.unwrap_or(BARRIER_STEPS).max(1);
            let dt = c.maturity / f64::from(steps);
            let out = partials_for(2, McBarrier::blocks(pairs))?;
            McBarrier {
                partials: &out,
                seed,
                pairs,
                steps,
                spot: c.spot,
                strike: c.strike,
                barrier,
                rebate,
                is_call: w,
                kind,
                continuous: u32::from(fixings.is_none()),
                drift_dt: drift_rate * dt,
                vol_sqrt_dt: c.vol * dt.sqrt(),
                rate_dt: c.rate * dt,
                discount,
            }
            .launch(dev, s)?;
            (2, out)
        }
    };
    let partials: Vec<f64> = dev.download_vec(s, &out)?;
    let n = pairs as f64;
    let sum = |j: usize| partials.chunks_exact(width).map(|p| p[j]).sum::<f64>();
    Ok(match c.product {
        Product::AsianGeo(_) => stats(sum(2), sum(3), n),
        _ => stats(sum(0), sum(1), n),
    })
}

/// Black-Scholes price of a European option (Black and Scholes 1973, Merton 1973), with the
/// normal distribution from `erfc` (W. J. Cody's rational Chebyshev approximation as in
/// Numerical Recipes' `erfcc`, relative error below 1.2e-7): for sanity lines in reports.
pub fn black_scholes(c: &Contract) -> f64 {
    let erfc = |x: f64| {
        let z = x.abs();
        let t = 1.0 / (1.0 + 0.5 * z);
        let r = t
            * (-z * z - 1.265_512_23
                + t * (1.000_023_68
                    + t * (0.374_091_96
                        + t * (0.096_784_18
                            + t * (-0.186_288_06
                                + t * (0.278_868_07
                                    + t * (-1.135_203_98
                                        + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
                .exp();
        if x >= 0.0 {
            r
        } else {
            2.0 - r
        }
    };
    let n = |x: f64| 0.5 * erfc(-x / std::f64::consts::SQRT_2);
    let sq = c.vol * c.maturity.sqrt();
    let d1 = ((c.spot / c.strike).ln() + (c.rate - c.dividend + 0.5 * c.vol * c.vol) * c.maturity) / sq;
    let d2 = d1 - sq;
    let df = (-c.rate * c.maturity).exp();
    let fq = (-c.dividend * c.maturity).exp();
    if c.call {
        c.spot * fq * n(d1) - c.strike * df * n(d2)
    } else {
        c.strike * df * n(-d2) - c.spot * fq * n(-d1)
    }
}
