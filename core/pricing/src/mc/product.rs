//! The argument shapes the Monte Carlo kernels take, and the traits by which a product hands
//! them to the engine ([`McArguments`], [`McPayoff`]).

use super::McError;
use crate::analytic::bump::{BumpDomain, BumpParam};
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

/// The Monte Carlo engine's view of a product's terms: its arguments (QuantLib's engine
/// `arguments`). The contract, the parameter checks, and how the bumps of [`super::greeks`]
/// move it. Implemented by the argument shapes the kernels take ([`Vanilla`],
/// [`BarrierOption`], [`AsianOption`], [`HestonMcOption`]) and by the product table's
/// [`crate::products::McProduct`], which holds one of them per row.
pub trait McArguments: Copy + Send + Sync {
    /// The underlying contract and market.
    fn vanilla(&self) -> &Vanilla;

    /// Mutable access to the contract and market (for bumping).
    fn vanilla_mut(&mut self) -> &mut Vanilla;

    /// Checks every parameter.
    ///
    /// # Errors
    /// [`McError::InvalidParameter`] naming the first parameter out of its domain: spot,
    /// strike > 0; vol, maturity > 0; rate, dividend finite; then the shape's own.
    fn validate(&self) -> Result<(), McError>;

    /// Where the spot may be bumped for delta and gamma (anywhere above 0 unless the shape
    /// says otherwise: a barrier keeps the spot on its side).
    fn spot_domain(&self) -> BumpDomain {
        BumpParam::Spot.domain()
    }

    /// The time bump for theta given the engine's `bump` (already at most half the maturity):
    /// an Asian also keeps it under half its first future fixing.
    fn time_bump(&self, bump: f64) -> f64 {
        bump
    }

    /// Moves calendar time by `h` years: the maturity (and an Asian's future fixings).
    fn shift_time(&mut self, h: f64) {
        self.vanilla_mut().maturity += h;
    }

    /// Moves the volatility by `h`: `vanilla.vol += h` (for a Heston option the initial
    /// volatility `sqrt(v0)`, so `params.v0` becomes `(sqrt(v0) + h)^2`).
    fn shift_vol(&mut self, h: f64) {
        self.vanilla_mut().vol += h;
    }

    /// Time steps per path on a grid of `steps` ([`super::McConfig::steps`]): 1, the grid, the
    /// monitoring dates or fixings, or the grid's QE sub-steps.
    fn path_steps(&self, steps: u32) -> u32;

    /// QE sub-steps per time step on a grid of `steps` for a Heston option
    /// ([`HestonMcOption::substeps`]); `None` for the other shapes.
    fn qe_substeps(&self, _steps: u32) -> Option<u32> {
        None
    }
}

/// A product the engine can price ([`super::price`], [`super::price_batch`]): its arguments and
/// the job that simulates them (a launch of one of the engine's kernels and the estimator).
pub trait McPayoff: McArguments {
    /// The job for these arguments under `cfg` (validated by the engine before), a call
    /// simulated on `route` ([`McPayoff::call_route`] of the unbumped product, which its
    /// bumped copies for Greeks share: common random numbers).
    ///
    /// # Errors
    /// [`McError::InvalidParameter`] or [`McError::Unsupported`] (e.g. a barrier in fp32).
    fn job(&self, cfg: &super::McConfig, route: super::CallRoute) -> Result<super::McJob, McError>;

    /// How a call is simulated: as it is, or through its bounded put and an exact identity
    /// (`super::parity`); [`super::CallRoute::AsIs`] for a put.
    fn call_route(&self) -> super::CallRoute;

    /// Device cost per estimated path-step relative to a European's, for sharding a book
    /// ([`crate::portfolio::shard_book`]).
    fn cost_weight(&self) -> f64 {
        1.0
    }
}

fn positive(name: &'static str, x: f64) -> Result<(), McError> {
    if x.is_finite() && x > 0.0 {
        Ok(())
    } else {
        Err(McError::invalid(name, x, "must be finite and > 0"))
    }
}

/// The checks every shape starts with: spot, strike, vol, maturity > 0; rate, dividend finite.
fn validate_vanilla(v: &Vanilla) -> Result<(), McError> {
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
    Ok(())
}

/// A European call or put: one step per path.
impl McArguments for Vanilla {
    fn vanilla(&self) -> &Vanilla {
        self
    }
    fn vanilla_mut(&mut self) -> &mut Vanilla {
        self
    }
    fn validate(&self) -> Result<(), McError> {
        validate_vanilla(self)
    }
    fn path_steps(&self, _steps: u32) -> u32 {
        1
    }
}

impl McArguments for BarrierOption {
    fn vanilla(&self) -> &Vanilla {
        &self.vanilla
    }
    fn vanilla_mut(&mut self) -> &mut Vanilla {
        &mut self.vanilla
    }
    /// Also: barrier > 0; rebate finite and >= 0; discrete monitoring with at least one date.
    fn validate(&self) -> Result<(), McError> {
        validate_vanilla(&self.vanilla)?;
        positive("barrier", self.barrier)?;
        if !(self.rebate.is_finite() && self.rebate >= 0.0) {
            return Err(McError::invalid("rebate", self.rebate, "must be finite and >= 0"));
        }
        if self.monitoring == Monitoring::Discrete(0) {
            return Err(McError::invalid("fixings", 0.0, "discrete monitoring needs at least one date"));
        }
        Ok(())
    }
    fn spot_domain(&self) -> BumpDomain {
        BumpDomain::barrier_spot(self.barrier_type, self.vanilla.spot, self.barrier)
    }
    fn path_steps(&self, steps: u32) -> u32 {
        match self.monitoring {
            Monitoring::Continuous => steps,
            Monitoring::Discrete(n) => n,
        }
    }
}

impl McArguments for AsianOption {
    fn vanilla(&self) -> &Vanilla {
        &self.vanilla
    }
    fn vanilla_mut(&mut self) -> &mut Vanilla {
        &mut self.vanilla
    }
    /// Also: at least one fixing; the first and the interval finite and > 0 where used; the last
    /// fixing not after maturity.
    fn validate(&self) -> Result<(), McError> {
        let v = &self.vanilla;
        validate_vanilla(v)?;
        let s = &self.schedule;
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
    fn time_bump(&self, bump: f64) -> f64 {
        if self.schedule.count > 0 {
            bump.min(0.5 * self.schedule.first)
        } else {
            bump
        }
    }
    /// The exercise date and every future fixing move by `h` (today's spot stays a fixing when
    /// it is one).
    fn shift_time(&mut self, h: f64) {
        self.vanilla.maturity += h;
        if self.schedule.count > 0 {
            self.schedule.first += h;
        }
    }
    fn path_steps(&self, _steps: u32) -> u32 {
        self.schedule.count
    }
}

impl McArguments for HestonMcOption {
    fn vanilla(&self) -> &Vanilla {
        &self.vanilla
    }
    fn vanilla_mut(&mut self) -> &mut Vanilla {
        &mut self.vanilla
    }
    /// Also: `v0`, `kappa`, `theta`, `sigma` > 0 and `rho` inside (-1, 1)
    /// ([`crate::heston::HestonParams::validate`]); `v0` and `theta` at most
    /// [`QE_MAX_VARIANCE`]; `grid_maturity` finite and > 0.
    fn validate(&self) -> Result<(), McError> {
        validate_vanilla(&self.vanilla)?;
        self.params.validate().map_err(|e| match e {
            crate::heston::HestonError::InvalidParameter { name, value, reason } => {
                McError::invalid(name, value, reason)
            }
            other => McError::BadResult(other.to_string()),
        })?;
        for (name, x) in [("v0", self.params.v0), ("theta", self.params.theta)] {
            if x.is_nan() || x > QE_MAX_VARIANCE {
                return Err(McError::invalid(
                    name,
                    x,
                    "must be <= 1e150 for the QE scheme (its moment match squares the variance)",
                ));
            }
        }
        if !(self.grid_maturity.is_finite() && self.grid_maturity > 0.0) {
            return Err(McError::invalid("grid_maturity", self.grid_maturity, "must be finite and > 0"));
        }
        Ok(())
    }
    /// The initial volatility `sqrt(v0)` moves, and `params.v0` with it.
    fn shift_vol(&mut self, h: f64) {
        let vol = self.vanilla.vol + h;
        self.vanilla.vol = vol;
        self.params.v0 = vol * vol;
    }
    fn path_steps(&self, steps: u32) -> u32 {
        steps.saturating_mul(self.substeps(steps))
    }
    fn qe_substeps(&self, steps: u32) -> Option<u32> {
        Some(self.substeps(steps))
    }
}
