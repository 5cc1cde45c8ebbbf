//! Turns a product into kernel launches and the estimator that reads their partial sums.

use tenor_ports::{ComputeError, Precision};

pub(crate) use super::launch::Launch;
use super::launch::{Asian, Barrier, European, Heston};
use super::parity::{self, CallRoute};
use super::product::{AsianOption, BarrierOption, HestonMcOption, McPayoff, Monitoring};
use super::{stats, McConfig, McError, McPrice};
use crate::analytic::asian::GeometricAsian;
use crate::types::Vanilla;

/// How the reduced partial sums become a price.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Estimator {
    /// Known on the host; no launch.
    Constant(f64),
    /// Sum and sum of squares at these offsets of the reduced partials.
    Plain { sum: usize, sum_sq: usize },
    /// `mc_asian`'s five sums with the geometric closed form as control.
    ControlVariate { exact: f64 },
}

/// A product's work (opaque outside the engine; [`super::McPayoff::job`] plans it with the
/// kernel planners of this crate): at most one launch, its estimator, and the exact affine map
/// from the simulated product's value to the asked one (`price = shift + scale * estimate`,
/// `stderr = |scale| * stderr`): identity, or a parity identity when a call is priced through
/// its bounded put ([`parity`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub(crate) launch: Option<Launch>,
    pub(crate) estimator: Estimator,
    pub(crate) shift: f64,
    pub(crate) scale: f64,
}

impl Job {
    /// The price from the reduced partial sums (`None` when there was no launch).
    pub(crate) fn finish(&self, sums: Option<&[f64]>) -> Result<McPrice, McError> {
        let p = self.estimate(sums)?;
        if self.shift == 0.0 && self.scale == 1.0 {
            return Ok(p);
        }
        Ok(McPrice { price: self.shift + self.scale * p.price, stderr: self.scale.abs() * p.stderr, paths: p.paths })
    }

    /// The simulated product's estimate, before the affine map.
    fn estimate(&self, sums: Option<&[f64]>) -> Result<McPrice, McError> {
        let pairs = self.launch.as_ref().map_or(0, Launch::pairs);
        let need = |n: usize| match sums {
            Some(s) if s.len() >= n && s.iter().all(|x| x.is_finite()) => Ok(s),
            Some(s) => Err(McError::BadResult(format!("partial sums {s:?}: need {n} finite values"))),
            None => Err(McError::BadResult("no partial sums for a simulated estimator".into())),
        };
        match self.estimator {
            Estimator::Constant(v) => Ok(McPrice { price: v, stderr: 0.0, paths: 0 }),
            Estimator::Plain { sum, sum_sq } => {
                let s = need(sum.max(sum_sq) + 1)?;
                Ok(stats::plain_estimate(s[sum], s[sum_sq], pairs))
            }
            Estimator::ControlVariate { exact } => {
                let s = need(5)?;
                Ok(stats::control_variate([s[0], s[1], s[2], s[3], s[4]], exact, pairs))
            }
        }
    }
}

fn mu(v: &Vanilla) -> f64 {
    v.rate - v.dividend - 0.5 * v.vol * v.vol
}

fn call_flag(v: &Vanilla) -> u32 {
    u32::from(v.option == crate::types::OptionType::Call)
}

pub(crate) fn european_direct(v: &Vanilla, cfg: &McConfig) -> Job {
    let t = v.maturity;
    let params = European {
        seed: cfg.seed,
        pairs: cfg.pairs(),
        spot: v.spot,
        strike: v.strike,
        is_call: call_flag(v),
        drift: mu(v) * t,
        vol_sqrt_t: v.vol * t.sqrt(),
        discount: (-v.rate * t).exp(),
    };
    let launch = match cfg.precision {
        Precision::F64 => Launch::European(params),
        Precision::F32 => Launch::EuropeanF32(params.to_f32()),
    };
    Job { launch: Some(launch), estimator: Estimator::Plain { sum: 0, sum_sq: 1 }, shift: 0.0, scale: 1.0 }
}

pub(crate) fn barrier_direct(b: &BarrierOption, cfg: &McConfig) -> Result<Job, McError> {
    let v = &b.vanilla;
    if b.barrier_type.breached(v.spot, b.barrier) {
        // Portfolio spec: a knock-out is worth its rebate paid now, a knock-in the vanilla.
        return Ok(if b.barrier_type.is_out() {
            Job { launch: None, estimator: Estimator::Constant(b.rebate), shift: 0.0, scale: 1.0 }
        } else {
            parity::european(v, cfg, parity::european_route(v))?
        });
    }
    if cfg.precision == Precision::F32 {
        return Err(McError::Unsupported("barrier options are simulated in fp64 only".into()));
    }
    let (steps, continuous) = match b.monitoring {
        Monitoring::Continuous => (cfg.steps, 1u32),
        Monitoring::Discrete(n) => (n, 0u32),
    };
    let dt = v.maturity / f64::from(steps);
    let params = Barrier {
        seed: cfg.seed,
        pairs: cfg.pairs(),
        steps,
        spot: v.spot,
        strike: v.strike,
        barrier: b.barrier,
        rebate: b.rebate,
        is_call: call_flag(v),
        kind: b.barrier_type.code(),
        continuous,
        drift_dt: mu(v) * dt,
        vol_sqrt_dt: v.vol * dt.sqrt(),
        rate_dt: v.rate * dt,
        discount: (-v.rate * v.maturity).exp(),
    };
    Ok(Job {
        launch: Some(Launch::Barrier(params)),
        estimator: Estimator::Plain { sum: 0, sum_sq: 1 },
        shift: 0.0,
        scale: 1.0,
    })
}

pub(crate) fn asian_direct(a: &AsianOption, cfg: &McConfig, arithmetic: bool) -> Result<Job, McError> {
    let v = &a.vanilla;
    let s = &a.schedule;
    let m = mu(v);
    let params = Asian {
        seed: cfg.seed,
        pairs: cfg.pairs(),
        steps: s.count,
        spot: v.spot,
        strike: v.strike,
        is_call: call_flag(v),
        spot_fixing: u32::from(s.spot_fixing),
        drift_first: m * s.first,
        vol_first: v.vol * s.first.sqrt(),
        drift_dt: m * s.interval,
        vol_sqrt_dt: v.vol * s.interval.sqrt(),
        discount: (-v.rate * v.maturity).exp(),
    };
    let launch = match cfg.precision {
        Precision::F64 => Launch::Asian(params),
        Precision::F32 => Launch::AsianF32(params.to_f32()),
    };
    let estimator = if arithmetic && !cfg.control_variate {
        Estimator::Plain { sum: 0, sum_sq: 1 }
    } else if arithmetic {
        let geo = GeometricAsian {
            option: v.option,
            spot: v.spot,
            strike: v.strike,
            rate: v.rate,
            dividend: v.dividend,
            vol: v.vol,
            expiry: v.maturity,
        };
        Estimator::ControlVariate { exact: geo.average_price(&s.times())? }
    } else {
        Estimator::Plain { sum: 2, sum_sq: 3 }
    };
    Ok(Job { launch: Some(launch), estimator, shift: 0.0, scale: 1.0 })
}

/// The job of a Heston option: antithetic QE pairs on `cfg.steps` equal steps, each cut into
/// [`HestonMcOption::substeps`] equal QE steps (the `heston_qe_mc` kernel), the discounted
/// payoff simulated as it is (a call through its put: [`parity::heston`]).
pub(crate) fn heston_direct(h: &HestonMcOption, cfg: &McConfig) -> Result<Job, McError> {
    if cfg.precision == Precision::F32 {
        return Err(McError::Unsupported("Heston options are simulated in fp64 only".into()));
    }
    let (v, p) = (&h.vanilla, &h.params);
    let steps = cfg.steps.saturating_mul(h.substeps(cfg.steps));
    let dt = v.maturity / f64::from(steps);
    let launch = Launch::Heston(Heston {
        seed: cfg.seed,
        pairs: cfg.pairs(),
        steps,
        spot: v.spot,
        strike: v.strike,
        is_call: call_flag(v),
        drift_dt: (v.rate - v.dividend) * dt,
        dt,
        v0: p.v0,
        kappa: p.kappa,
        theta: p.theta,
        sigma: p.sigma.max(crate::heston::SIGMA_FLOOR),
        rho: p.rho,
        discount: (-v.rate * v.maturity).exp(),
    });
    Ok(Job { launch: Some(launch), estimator: Estimator::Plain { sum: 0, sum_sq: 1 }, shift: 0.0, scale: 1.0 })
}

/// The job for `product` under `cfg` (validated here), on the route its own call takes
/// ([`McPayoff::call_route`]; the engine plans a trade's bumped copies on the unbumped product's).
#[cfg(test)]
pub(crate) fn plan<P: McPayoff>(product: &P, cfg: &McConfig) -> Result<Job, McError> {
    plan_routed(product, cfg, product.call_route())
}

/// The job for `product` under `cfg` (both validated here), a call simulated on `route` (the
/// unbumped product's, for a bumped copy: [`super::parity`]).
pub(crate) fn plan_routed<P: McPayoff>(product: &P, cfg: &McConfig, route: CallRoute) -> Result<Job, McError> {
    cfg.validate()?;
    product.validate()?;
    product.job(cfg, route)
}

/// Decodes native-endian f64 bytes from a download.
pub(crate) fn f64s(bytes: &[u8]) -> Result<Vec<f64>, ComputeError> {
    if !bytes.len().is_multiple_of(8) {
        return Err(ComputeError::InvalidArgument(format!("{} bytes are not whole f64 values", bytes.len())));
    }
    Ok(bytes.chunks_exact(8).map(|c| f64::from_ne_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])).collect())
}
