//! The products the Monte Carlo engines price, and their validation.

use super::McError;
use crate::types::{BarrierType, Vanilla};

/// How a barrier is monitored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Monitoring {
    /// Continuously (Brownian-bridge correction on the grid of [`super::McConfig::steps`]).
    Continuous,
    /// At `n` dates `T j / n`, `j = 1..n` (the portfolio spec's `fixings` column).
    Discrete(u32),
}

/// A single-barrier European option (Haug's rebate convention: a knock-out pays the rebate at
/// the hit, a knock-in pays it at expiry if never knocked in).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BarrierOption {
    /// The underlying European contract and market.
    pub vanilla: Vanilla,
    /// Direction and effect.
    pub barrier_type: BarrierType,
    /// Barrier level, currency units.
    pub barrier: f64,
    /// Cash rebate, currency units (>= 0).
    pub rebate: f64,
    /// Monitoring.
    pub monitoring: Monitoring,
}

/// Equally spaced averaging dates after an optional first interval of its own: fixings at
/// `first + k interval`, `k = 0..count`, preceded by today's spot when `spot_fixing`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixingSchedule {
    /// Whether today's spot is the first fixing.
    pub spot_fixing: bool,
    /// Years from today to the first simulated fixing (> 0 when `count > 0`).
    pub first: f64,
    /// Years between later fixings.
    pub interval: f64,
    /// Number of simulated (future) fixings.
    pub count: u32,
}

impl FixingSchedule {
    /// The portfolio spec's schedule: `n` fixings at `maturity j / n`, `j = 1..n`.
    pub fn uniform(maturity: f64, n: u32) -> Self {
        let dt = maturity / f64::from(n.max(1));
        Self { spot_fixing: false, first: dt, interval: dt, count: n }
    }

    /// `n` equally spaced fixings `t_first + k t_length / (n - 1)`, `k = 0..n-1` (the Levy
    /// table's schedule in `shared/oracles/README.md`); `t_first = 0` makes today's spot the
    /// first fixing.
    pub fn equally_spaced(t_first: f64, t_length: f64, n: u32) -> Self {
        let interval = if n > 1 { t_length / f64::from(n - 1) } else { 0.0 };
        if t_first == 0.0 {
            Self { spot_fixing: true, first: interval, interval, count: n.saturating_sub(1) }
        } else {
            Self { spot_fixing: false, first: t_first, interval, count: n }
        }
    }

    /// All fixing times in years (0 for today's spot).
    pub fn times(&self) -> Vec<f64> {
        let mut t = Vec::with_capacity(self.count as usize + 1);
        if self.spot_fixing {
            t.push(0.0);
        }
        t.extend((0..self.count).map(|k| self.first + f64::from(k) * self.interval));
        t
    }

    /// The last fixing time.
    pub fn last(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.first + f64::from(self.count - 1) * self.interval
        }
    }

    /// Number of fixings including the spot.
    pub fn fixings(&self) -> u32 {
        self.count + u32::from(self.spot_fixing)
    }
}

/// A fixed-strike average-price Asian option.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AsianOption {
    /// Contract and market; `maturity` is the exercise (payment) time.
    pub vanilla: Vanilla,
    /// The averaging dates.
    pub schedule: FixingSchedule,
}

/// A European option under the Heston (1993) model, priced by Andersen's (2008)
/// quadratic-exponential scheme (the `heston_qe_mc` kernel) on [`super::McConfig::steps`]
/// equal time steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HestonMcOption {
    /// Contract and market; `vol` is the initial volatility `sqrt(v0)` ([`HestonMcOption::new`]),
    /// the parameter vega is taken against (a vol bump moves `params.v0` with it).
    pub vanilla: Vanilla,
    /// Model parameters; `params.v0` is the simulated initial variance.
    pub params: crate::heston::HestonParams,
    /// Maturity (years) that sets the number of QE sub-steps per time step
    /// ([`HestonMcOption::substeps`]): the contract's maturity, kept by the time-bumped copies
    /// for theta so that they draw the same random numbers (common random numbers).
    pub grid_maturity: f64,
}

/// Largest `kappa dt` of one QE step: a longer step of [`super::McConfig::steps`] is cut into
/// equal sub-steps. Andersen's (2008) log-spot step integrates the variance over a step by the
/// trapezoid rule (`gamma_1 = gamma_2 = 1/2`, his section 4.2), exact only while the variance
/// moves little within the step; its error in the drift term `rho kappa / sigma int v dt` grows
/// with `kappa dt` (his tests have `kappa dt` of at most 1). Measured on a put (S = K = 100,
/// T 1, r 3 %, v0 0.09, theta 0.04, xi 1, rho -0.7; semi-analytic 6.5091 at `kappa` 100), mean
/// of four seeds at 200,000 paths: -0.031 at `kappa dt` 0.5, -0.0025 (0.3 standard errors of
/// the mean) at 0.25; `kappa` 1000 on 64 steps (`kappa dt` 15.6) gave 8.79 against 6.458.
pub const QE_MAX_KAPPA_DT: f64 = 0.25;

/// Largest initial or long-run variance the QE scheme simulates: its moment match squares the
/// variance's conditional mean (`psi = s^2 / m^2`, Andersen 2008, eq. 17), which overflows f64
/// above `sqrt(f64::MAX)` (about 1.3e154), and the exponential branch draws variances up to
/// about 37 times the mean; above this bound the paths would turn into NaN or 0.
pub const QE_MAX_VARIANCE: f64 = 1e150;

impl HestonMcOption {
    /// The option with `vanilla`'s contract and market under `params` (`vanilla.vol` is set to
    /// `sqrt(params.v0)`; the `vol` given is ignored; [`HestonMcOption::grid_maturity`] is the
    /// contract's maturity).
    pub fn new(vanilla: Vanilla, params: crate::heston::HestonParams) -> Self {
        Self { vanilla: Vanilla { vol: params.v0.sqrt(), ..vanilla }, params, grid_maturity: vanilla.maturity }
    }

    /// QE sub-steps per time step on a grid of `steps` steps: the fewest that keep
    /// `kappa grid_maturity / (steps substeps)` at most [`QE_MAX_KAPPA_DT`], at least 1 (and at
    /// most `u32::MAX / steps`, which the work limit of the book refuses long before).
    #[must_use]
    pub fn substeps(&self, steps: u32) -> u32 {
        let per = self.params.kappa * self.grid_maturity / (f64::from(steps.max(1)) * QE_MAX_KAPPA_DT);
        let most = f64::from(u32::MAX / steps.max(1));
        if per.is_finite() {
            per.ceil().clamp(1.0, most) as u32
        } else {
            1
        }
    }
}

/// What [`super::price`] can value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum McProduct {
    /// European call or put.
    European(Vanilla),
    /// Single-barrier option.
    Barrier(BarrierOption),
    /// Average-price option on the geometric average (plain Monte Carlo).
    AsianGeometric(AsianOption),
    /// Average-price option on the arithmetic average (geometric control variate).
    AsianArithmetic(AsianOption),
    /// European option under Heston (QE Monte Carlo).
    Heston(HestonMcOption),
}

impl McProduct {
    /// The underlying contract and market.
    pub fn vanilla(&self) -> &Vanilla {
        match self {
            Self::European(v) => v,
            Self::Barrier(b) => &b.vanilla,
            Self::AsianGeometric(a) | Self::AsianArithmetic(a) => &a.vanilla,
            Self::Heston(h) => &h.vanilla,
        }
    }

    /// Mutable access to the contract and market (for bumping).
    pub fn vanilla_mut(&mut self) -> &mut Vanilla {
        match self {
            Self::European(v) => v,
            Self::Barrier(b) => &mut b.vanilla,
            Self::AsianGeometric(a) | Self::AsianArithmetic(a) => &mut a.vanilla,
            Self::Heston(h) => &mut h.vanilla,
        }
    }

    /// Moves the volatility by `h`: `vanilla.vol += h`; for a Heston option the initial
    /// volatility `sqrt(v0)` moves, so `params.v0` becomes `(sqrt(v0) + h)^2`.
    pub fn shift_vol(&mut self, h: f64) {
        if let Self::Heston(o) = self {
            let vol = o.vanilla.vol + h;
            o.vanilla.vol = vol;
            o.params.v0 = vol * vol;
        } else {
            self.vanilla_mut().vol += h;
        }
    }

    /// Checks every parameter.
    ///
    /// # Errors
    /// [`McError::InvalidParameter`] naming the first parameter out of its domain: spot,
    /// strike, barrier > 0; vol, maturity > 0; rate, dividend finite; rebate >= 0; discrete
    /// monitoring with at least one date; fixings inside `[0, maturity]`; Heston `v0`, `kappa`,
    /// `theta`, `sigma` > 0 and `rho` inside (-1, 1).
    pub fn validate(&self) -> Result<(), McError> {
        let v = self.vanilla();
        let positive = |name, x: f64| {
            if x.is_finite() && x > 0.0 {
                Ok(())
            } else {
                Err(McError::invalid(name, x, "must be finite and > 0"))
            }
        };
        positive("spot", v.spot)?;
        positive("strike", v.strike)?;
        positive("vol", v.vol)?;
        positive("maturity", v.maturity)?;
        if !v.rate.is_finite() {
            return Err(McError::invalid("rate", v.rate, "must be finite"));
        }
        if !v.dividend.is_finite() {
            return Err(McError::invalid("dividend", v.dividend, "must be finite"));
        }
        match self {
            Self::European(_) => Ok(()),
            Self::Heston(h) => {
                h.params.validate().map_err(|e| match e {
                    crate::heston::HestonError::InvalidParameter { name, value, reason } => {
                        McError::invalid(name, value, reason)
                    }
                    other => McError::BadResult(other.to_string()),
                })?;
                for (name, x) in [("v0", h.params.v0), ("theta", h.params.theta)] {
                    if x.is_nan() || x > QE_MAX_VARIANCE {
                        return Err(McError::invalid(
                            name,
                            x,
                            "must be <= 1e150 for the QE scheme (its moment match squares the variance)",
                        ));
                    }
                }
                if !(h.grid_maturity.is_finite() && h.grid_maturity > 0.0) {
                    return Err(McError::invalid("grid_maturity", h.grid_maturity, "must be finite and > 0"));
                }
                Ok(())
            }
            Self::Barrier(b) => {
                positive("barrier", b.barrier)?;
                if !(b.rebate.is_finite() && b.rebate >= 0.0) {
                    return Err(McError::invalid("rebate", b.rebate, "must be finite and >= 0"));
                }
                if b.monitoring == Monitoring::Discrete(0) {
                    return Err(McError::invalid("fixings", 0.0, "discrete monitoring needs at least one date"));
                }
                Ok(())
            }
            Self::AsianGeometric(a) | Self::AsianArithmetic(a) => {
                let s = &a.schedule;
                if s.fixings() == 0 {
                    return Err(McError::invalid("fixings", 0.0, "at least one fixing is needed"));
                }
                if s.count > 0 && !(s.first.is_finite() && s.first > 0.0) {
                    return Err(McError::invalid("first_fixing", s.first, "must be finite and > 0"));
                }
                if s.count > 1 && !(s.interval.is_finite() && s.interval > 0.0) {
                    return Err(McError::invalid("fixing_interval", s.interval, "must be finite and > 0"));
                }
                if s.last() > v.maturity * (1.0 + 1e-12) {
                    return Err(McError::invalid("fixings", s.last(), "the last fixing is after maturity"));
                }
                Ok(())
            }
        }
    }
}
