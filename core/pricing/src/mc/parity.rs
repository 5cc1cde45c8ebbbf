//! Monte Carlo calls priced through bounded payoffs and exact identities (issue 17).
//!
//! A call's payoff is unbounded: at high volatility its sample is heavy-tailed and both the
//! plain estimate and its standard error are unreliable (at vol 5 a European call came out
//! 31.0 +/- 7.8 against the closed form 96.82). A careful engine simulates the bounded put and
//! adds the model-free difference `C - P` known in closed form (Glasserman 2004, sec. 4.1 on
//! using known expectations; Hull, *Options, Futures and Other Derivatives*, put-call parity):
//!
//! | product | simulated | exact term added |
//! | --- | --- | --- |
//! | European call | the put | `S e^{-qT} - K e^{-rT}` |
//! | arithmetic Asian call | the put (geometric put as control variate) | `e^{-rT} (E[A] - K)`, `E[A] = S mean_j e^{(r-q) t_j}` |
//! | geometric Asian call | the put | closed-form geometric call minus put (`e^{-rT} (E[G] - K)`) |
//! | continuously monitored barrier call | the put with the same barrier | Reiner-Rubinstein call minus put (the rebates cancel path by path) |
//! | discretely monitored up-and-in call, no rebate | the up-and-out call (payoff below `B - K`), subtracted | the Black-Scholes call (in-out parity) |
//!
//! Other calls (discretely monitored down barriers, an up-and-in with a rebate; the up-and-out
//! call is already bounded) are simulated as they are. Only the host side changes: each job
//! launches the same kernels with the same signatures (the put's `call` flag is 0), and its
//! estimate goes through [`Job::finish`]'s exact affine map, so a batched launch that
//! reproduces per-trade launches bitwise still does.
//!
//! The standard error is the put's (times `|scale|`): the added term has none.

use super::plan::{asian_direct, barrier_direct, european_direct, Job};
use super::product::{AsianOption, BarrierOption, Monitoring};
use super::{McConfig, McError};
use crate::analytic::asian::GeometricAsian;
use crate::analytic::{barrier_price, black_scholes};
use crate::types::{BarrierSpec, BarrierType, OptionType, Vanilla};

fn as_put(v: &Vanilla) -> Vanilla {
    Vanilla { option: OptionType::Put, ..*v }
}

fn shifted(mut job: Job, shift: f64, scale: f64) -> Job {
    job.shift = shift;
    job.scale = scale;
    job
}

/// A European option; a call is the put plus `S e^{-qT} - K e^{-rT}`.
pub(crate) fn european(v: &Vanilla, cfg: &McConfig) -> Result<Job, McError> {
    if v.option == OptionType::Put {
        return Ok(european_direct(v, cfg));
    }
    let t = v.maturity;
    let forward_value = v.spot * (-v.dividend * t).exp() - v.strike * (-v.rate * t).exp();
    Ok(shifted(european_direct(&as_put(v), cfg), forward_value, 1.0))
}

/// A barrier option; calls per the module table.
pub(crate) fn barrier(b: &BarrierOption, cfg: &McConfig) -> Result<Job, McError> {
    let v = &b.vanilla;
    if v.option == OptionType::Put || b.barrier_type.breached(v.spot, b.barrier) {
        return barrier_direct(b, cfg);
    }
    match b.monitoring {
        Monitoring::Continuous => {
            let spec = |vanilla: Vanilla| BarrierSpec {
                vanilla,
                barrier: b.barrier,
                barrier_type: b.barrier_type,
                rebate: b.rebate,
            };
            let difference = barrier_price(&spec(*v))? - barrier_price(&spec(as_put(v)))?;
            let put = BarrierOption { vanilla: as_put(v), ..*b };
            Ok(shifted(barrier_direct(&put, cfg)?, difference, 1.0))
        }
        Monitoring::Discrete(_) if b.barrier_type == BarrierType::UpIn && b.rebate == 0.0 => {
            let out = BarrierOption { barrier_type: BarrierType::UpOut, ..*b };
            Ok(shifted(barrier_direct(&out, cfg)?, black_scholes(v)?.price, -1.0))
        }
        Monitoring::Discrete(_) => barrier_direct(b, cfg),
    }
}

/// An average-price Asian option; a call is the put plus the exact `C - P`.
pub(crate) fn asian(a: &AsianOption, cfg: &McConfig, arithmetic: bool) -> Result<Job, McError> {
    let v = &a.vanilla;
    if v.option == OptionType::Put {
        return asian_direct(a, cfg, arithmetic);
    }
    let times = a.schedule.times();
    let df = (-v.rate * v.maturity).exp();
    let difference = if arithmetic {
        let growth = v.rate - v.dividend;
        let mean = v.spot * times.iter().map(|t| (growth * t).exp()).sum::<f64>() / times.len().max(1) as f64;
        df * (mean - v.strike)
    } else {
        let geo = |option| GeometricAsian {
            option,
            spot: v.spot,
            strike: v.strike,
            rate: v.rate,
            dividend: v.dividend,
            vol: v.vol,
            expiry: v.maturity,
        };
        geo(OptionType::Call).average_price(&times)? - geo(OptionType::Put).average_price(&times)?
    };
    let put = AsianOption { vanilla: as_put(v), ..*a };
    Ok(shifted(asian_direct(&put, cfg, arithmetic)?, difference, 1.0))
}
