//! The book pricer: each trade to the engine that suits it, with Greeks.
//!
//! | kind | [`Engine::Auto`] | [`Engine::Mc`] |
//! | --- | --- | --- |
//! | european | Black-Scholes-Merton closed form (`analytic`) | Monte Carlo (`mc`) |
//! | barrier, continuous | Reiner-Rubinstein closed form (Haug 2007, 4.17.1) | Monte Carlo with the Brownian-bridge correction |
//! | barrier, `fixings` = n | Monte Carlo on the n monitoring dates | same |
//! | asian_geo | discrete geometric closed form (Kemna and Vorst 1990) | Monte Carlo |
//! | asian_arith | Monte Carlo, geometric control variate | same |
//! | american | Crank-Nicolson finite differences with Rannacher start-up and Richardson extrapolation (`pde`, [`crate::american`]) | Longstaff-Schwartz Monte Carlo on the backend, batched over the book's American rows and their bumped copies (`lsm`, [`super::lsm_rows`]); where early exercise is never optimal (a call with no dividend and `rate >= 0`, Merton 1973; [`crate::american::no_early_exercise`]) the European closed form (`analytic`, `host`); every other call as the American put of the put-call symmetry (McDonald and Schroder 1998, [`priced_as_symmetric_put`]; still `lsm`) |
//! | heston | semi-analytic characteristic-function price (`analytic`, [`crate::heston`]) | QE Monte Carlo (Andersen 2008) on `steps` time steps (`mc`, [`crate::mc::HestonMcOption`]) |
//! | any, `maturity` 0 | the payoff now (`intrinsic`, [`super::expiry`]) | same |
//!
//! Greeks: closed-form delta, gamma, vega, theta, rho for the European; central differences of
//! the finite-difference price for the American (bump-and-revalue of the Longstaff-Schwartz
//! price with common random numbers under [`Engine::Mc`]), and of the semi-analytic price for Heston
//! (vega there is the sensitivity to the initial volatility `sqrt(v0)`, under Monte Carlo too);
//! central differences of
//! the closed form for the continuous barrier and the geometric Asian
//! ([`crate::analytic::bump`]); bump-and-revalue with common random numbers for every Monte
//! Carlo row ([`crate::mc::greeks`]). On both paths a barrier's spot bumps stay on the side of
//! the barrier the spot is on (one-sided differences near it,
//! [`crate::analytic::BumpDomain::barrier_spot`]).
//!
//! Monte Carlo rows run on the `Compute` backend given, in chunks of up to 4096 trades (one batch
//! launch per stream and kernel each, [`crate::mc::McConfig::batch`]) spread over
//! [`BookConfig::streams`] streams; every trade uses the same Philox seed
//! ([`BookConfig::seed`]), so each row's value depends only on the trade and the configuration,
//! not on its position in the book or the number of streams and threads. Closed forms run on the
//! host (on all cores, beside the device's work); their rows say `host` in the `backend` column.

use tenor_ports::{Compute, Precision};
use thiserror::Error;

use super::trade::{AsianTrade, BarrierTrade, HestonTrade, Trade, TradeKind};
use super::write::PricedRow;
use crate::analytic::asian::{AsianError, GeometricAsian};
use crate::analytic::bump::{greeks_by_bump, BumpParam, BumpSteps, Bumpable};
use crate::analytic::{barrier_greeks, black_scholes};
use crate::error::PricingError;
use crate::heston::{heston_price, HestonOption};
use crate::mc::{
    self, AsianOption, BarrierOption, FixingSchedule, HestonMcOption, McConfig, McError, McProduct, Monitoring,
};
use crate::types::{BarrierSpec, Greeks, Vanilla};

/// Which engines may price a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// Closed forms where they exist, Monte Carlo otherwise (the table in the module docs).
    #[default]
    Auto,
    /// Monte Carlo for every supported kind, so the backend carries the whole book.
    Mc,
}

/// Settings of [`price_book`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BookConfig {
    /// Engine choice.
    pub engine: Engine,
    /// Monte Carlo paths per valuation (even, >= 4; antithetic pairs are `paths / 2`).
    pub paths: u64,
    /// Philox seed shared by every Monte Carlo row.
    pub seed: u64,
    /// Grid steps for continuously monitored barriers under Monte Carlo (the Brownian-bridge
    /// survival probability is exact on any grid; see [`crate::mc::McConfig::steps`]), and the
    /// time steps of a Heston row's QE paths under [`Engine::Mc`].
    pub steps: u32,
    /// Streams Monte Carlo trades are spread over.
    pub streams: usize,
    /// Whether to compute Greeks (Monte Carlo Greeks cost eight more valuations each).
    pub greeks: bool,
}

impl Default for BookConfig {
    fn default() -> Self {
        Self { engine: Engine::Auto, paths: 100_000, seed: 42, steps: 64, streams: 1, greeks: true }
    }
}

/// Most simulated path-steps one row may cost (paths x time steps or fixings x valuations,
/// nine valuations with Greeks): about 30 s of the CPU backend on two cores, so one legal row
/// cannot stall a book; a row over it is refused, named, and the others are priced and written.
pub const MAX_ROW_PATH_STEPS: u64 = 1_000_000_000;

/// Largest `--paths` (`BookConfig::paths`): a larger value could not price even one European
/// row within [`MAX_ROW_PATH_STEPS`].
pub const MAX_PATHS: u64 = MAX_ROW_PATH_STEPS;

/// Largest `--steps` (`BookConfig::steps`), as many as the largest `fixings`
/// ([`super::parse::MAX_FIXINGS`]).
pub const MAX_STEPS: u32 = super::parse::MAX_FIXINGS;

/// Largest `--streams` (`BookConfig::streams`): each stream is a device queue the backend
/// creates, so the count is a resource a request asks for, bounded like one (the command line's
/// limit since streams were added, 2^16 - 1).
pub const MAX_STREAMS: usize = 65_535;

/// Valuations per Monte Carlo row with Greeks: the price and eight bumped copies.
const GREEK_VALUATIONS: u64 = 9;

/// A [`BookConfig`] setting refused before anything is priced; the message starts with the
/// setting's name (front ends add their own spelling: `--paths` on the command line).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SettingError {
    /// `paths` odd, below 4 (Monte Carlo uses antithetic pairs) or above [`MAX_PATHS`].
    #[error("paths must be even, at least 4 (antithetic pairs) and at most {MAX_PATHS}, got {0}")]
    Paths(u64),
    /// `steps` zero or above [`MAX_STEPS`].
    #[error("steps must be between 1 and {MAX_STEPS}, got {0}")]
    Steps(u32),
    /// `streams` zero or above [`MAX_STREAMS`].
    #[error("streams must be between 1 and {MAX_STREAMS}, got {0}")]
    Streams(usize),
}

impl SettingError {
    /// The setting's name (`paths`, `steps`, `streams`).
    pub fn setting(&self) -> &'static str {
        match self {
            SettingError::Paths(_) => "paths",
            SettingError::Steps(_) => "steps",
            SettingError::Streams(_) => "streams",
        }
    }
}

impl BookConfig {
    /// Checks the settings every front end checks before pricing (the command line, the
    /// server's requests, Python, C): paths even, >= 4 and <= [`MAX_PATHS`], steps from 1 to
    /// [`MAX_STEPS`], streams from 1 to [`MAX_STREAMS`].
    ///
    /// # Errors
    /// The first [`SettingError`].
    pub fn check(&self) -> Result<(), SettingError> {
        if self.paths < 4 || !self.paths.is_multiple_of(2) || self.paths > MAX_PATHS {
            return Err(SettingError::Paths(self.paths));
        }
        if self.steps == 0 || self.steps > MAX_STEPS {
            return Err(SettingError::Steps(self.steps));
        }
        if self.streams == 0 || self.streams > MAX_STREAMS {
            return Err(SettingError::Streams(self.streams));
        }
        Ok(())
    }
}

/// Why a trade could not be priced.
#[derive(Debug, Clone, Error)]
pub enum PriceError {
    /// A closed form refused the trade's parameters.
    #[error(transparent)]
    Pricing(#[from] PricingError),
    /// The geometric Asian closed form refused the trade's parameters.
    #[error(transparent)]
    Asian(#[from] AsianError),
    /// The American finite-difference engine refused the trade's parameters.
    #[error(transparent)]
    American(#[from] crate::american::AmericanError),
    /// The Heston pricer refused the trade's parameters.
    #[error(transparent)]
    Heston(#[from] crate::heston::HestonError),
    /// The Monte Carlo engine or the device failed.
    #[error(transparent)]
    Mc(#[from] McError),
    /// The parameters are extreme enough that the price overflowed (e.g. a rate of -1e5).
    #[error(
        "the price is not a finite number ({price}): the parameters are outside the range the engines can evaluate"
    )]
    NonFinite {
        /// The value obtained.
        price: f64,
    },
    /// The row's Monte Carlo work exceeds [`MAX_ROW_PATH_STEPS`]; nothing was simulated for it.
    #[error(
        "needs {path_steps} simulated path-steps ({paths} paths x {steps} steps x {valuations} valuations), \
         over the per-row limit of {MAX_ROW_PATH_STEPS}: lower --paths, --steps or the row's fixings, or use --no-greeks"
    )]
    TooMuchWork {
        /// Path-steps the row would need.
        path_steps: u64,
        /// Paths per valuation.
        paths: u64,
        /// Time steps (or fixings) per path.
        steps: u64,
        /// Valuations (1, or 9 with Greeks).
        valuations: u64,
    },
    /// A Heston row's QE Monte Carlo work exceeds [`MAX_ROW_PATH_STEPS`]; nothing was simulated
    /// for it. Its path-steps are `paths x steps x substeps x valuations`: each of the `--steps`
    /// time steps is cut into sub-steps so that `kappa dt <= 0.25`
    /// ([`crate::mc::QE_MAX_KAPPA_DT`], ADR 0021), so fewer `--steps` reduce the work only down to
    /// `min_substeps` sub-steps per path (those of one step, about `kappa T / 0.25`).
    #[error(
        "needs {path_steps} simulated path-steps ({paths} paths x {} QE sub-steps per path ({steps} steps x \
         {substeps} sub-steps each, so that kappa dt <= 0.25) x {valuations} valuations), over the per-row limit \
         of {MAX_ROW_PATH_STEPS}: lower --paths or use --no-greeks (fewer --steps cannot take a path under \
         {min_substeps} sub-steps, kappa T / 0.25)",
        .steps.saturating_mul(*.substeps)
    )]
    TooMuchHestonWork {
        /// Path-steps the row would need.
        path_steps: u64,
        /// Paths per valuation.
        paths: u64,
        /// Time steps per path (`--steps`).
        steps: u64,
        /// QE sub-steps per time step ([`crate::mc::HestonMcOption::substeps`]).
        substeps: u64,
        /// Sub-steps per path with one time step, the fewest any `--steps` gives.
        min_substeps: u64,
        /// Valuations (1, or 9 with Greeks).
        valuations: u64,
    },
    /// The engine returned no result for the trade (a bug in the pricer, reported, not hidden).
    #[error("internal error: no result was produced for this trade")]
    NoResult,
}

/// How one trade will be priced.
pub(crate) enum Route {
    /// Maturity 0: the payoff now ([`super::expiry`]).
    Expiry,
    Analytic,
    Mc(McProduct),
    /// An American under [`Engine::Mc`]: Longstaff-Schwartz ([`super::lsm_rows`]).
    Lsm(Vanilla),
}

fn asian_product(a: &AsianTrade) -> AsianOption {
    AsianOption { vanilla: a.vanilla, schedule: FixingSchedule::uniform(a.vanilla.maturity, a.fixings) }
}

fn barrier_product(b: &BarrierTrade) -> BarrierOption {
    BarrierOption {
        vanilla: b.vanilla,
        barrier_type: b.barrier_type,
        barrier: b.barrier,
        rebate: b.rebate,
        monitoring: b.fixings.map_or(Monitoring::Continuous, Monitoring::Discrete),
    }
}

/// The Heston trade as a QE Monte Carlo product (the portfolio's `xi` is the pricer's `sigma`).
fn heston_product(h: &HestonTrade) -> HestonMcOption {
    HestonMcOption::new(
        h.vanilla,
        crate::heston::HestonParams {
            v0: h.params.v0,
            kappa: h.params.kappa,
            theta: h.params.theta,
            sigma: h.params.xi,
            rho: h.params.rho,
        },
    )
}

pub(crate) fn route(trade: &Trade, engine: Engine) -> Route {
    if trade.kind.vanilla().maturity == 0.0 {
        return Route::Expiry;
    }
    let mc = engine == Engine::Mc;
    match &trade.kind {
        TradeKind::European(v) if mc => Route::Mc(McProduct::European(*v)),
        TradeKind::European(_) => Route::Analytic,
        TradeKind::Barrier(b) if mc || b.fixings.is_some() => Route::Mc(McProduct::Barrier(barrier_product(b))),
        TradeKind::Barrier(_) => Route::Analytic,
        TradeKind::AsianGeo(a) if mc => Route::Mc(McProduct::AsianGeometric(asian_product(a))),
        TradeKind::AsianGeo(_) => Route::Analytic,
        TradeKind::AsianArith(a) => Route::Mc(McProduct::AsianArithmetic(asian_product(a))),
        TradeKind::Heston(h) if mc => Route::Mc(McProduct::Heston(heston_product(h))),
        // No early exercise premium (Merton's call without dividends): the European closed form.
        TradeKind::American(v) if mc && american_as_european(trade, engine).is_none() => Route::Lsm(*v),
        TradeKind::American(_) | TradeKind::Heston(_) => Route::Analytic,
    }
}

/// A geometric Asian whose maturity bump shifts every fixing with it (calendar time passing
/// moves all dates together, as [`crate::mc::greeks`] does for the Monte Carlo Asian).
#[derive(Debug, Clone, Copy)]
struct GeoAsianBump {
    vanilla: Vanilla,
    fixings: u32,
    base_maturity: f64,
}

impl GeoAsianBump {
    fn price(&self) -> Result<f64, AsianError> {
        let v = &self.vanilla;
        let shift = v.maturity - self.base_maturity;
        let n = f64::from(self.fixings);
        let times: Vec<f64> =
            (1..=self.fixings).map(|j| (self.base_maturity * f64::from(j) / n + shift).max(0.0)).collect();
        GeometricAsian {
            option: v.option,
            spot: v.spot,
            strike: v.strike,
            rate: v.rate,
            dividend: v.dividend,
            vol: v.vol,
            expiry: v.maturity,
        }
        .average_price(&times)
    }
}

impl Bumpable for GeoAsianBump {
    fn get(&self, p: BumpParam) -> f64 {
        self.vanilla.get(p)
    }
    fn set(&mut self, p: BumpParam, value: f64) {
        self.vanilla.set(p, value);
    }
}

/// Whether `trade` is an American that `engine` prices by the European closed form: under
/// [`Engine::Mc`], one whose early exercise is never optimal
/// ([`crate::american::no_early_exercise`], Merton 1973), where Longstaff-Schwartz's low bias
/// was far beyond its standard error (a call at vol 5: 56.5 +/- 2.9 against 97.3).
pub(super) fn american_as_european(trade: &Trade, engine: Engine) -> Option<&Vanilla> {
    match &trade.kind {
        TradeKind::American(v) if engine == Engine::Mc && crate::american::no_early_exercise(v) => Some(v),
        _ => None,
    }
}

/// Whether `engine` prices `trade` by Longstaff-Schwartz as the American put of the put-call
/// symmetry `C(S, K, r, q) = P(K, S, q, r)` (McDonald and Schroder 1998): an American call routed
/// to LSM under [`Engine::Mc`] (one whose early exercise may be optimal: a dividend yield above
/// 0, or a rate below 0; [`crate::american::lsm_as_symmetric_put`]). Its row's method is `lsm`,
/// as any LSM row's; front ends name such rows in their summary (`tenor price` does).
#[must_use]
pub fn priced_as_symmetric_put(trade: &Trade, engine: Engine) -> bool {
    matches!(route(trade, engine), Route::Lsm(v) if crate::american::lsm_as_symmetric_put(&v))
}

/// Prices a trade by closed form on the host (an American by finite differences, or under
/// [`Engine::Mc`] by the European closed form where [`american_as_european`]).
fn analytic(trade: &Trade, greeks: bool, engine: Engine) -> Result<Greeks, PriceError> {
    if let Some(v) = american_as_european(trade, engine) {
        return Ok(black_scholes(v)?);
    }
    match &trade.kind {
        TradeKind::European(v) => Ok(black_scholes(v)?),
        TradeKind::Barrier(b) => {
            let spec =
                BarrierSpec { vanilla: b.vanilla, barrier: b.barrier, barrier_type: b.barrier_type, rebate: b.rebate };
            if greeks {
                Ok(barrier_greeks(&spec)?)
            } else {
                Ok(Greeks { price: crate::analytic::barrier_price(&spec)?, ..Greeks::default() })
            }
        }
        TradeKind::AsianGeo(a) => {
            let g = GeoAsianBump { vanilla: a.vanilla, fixings: a.fixings, base_maturity: a.vanilla.maturity };
            if greeks {
                Ok(greeks_by_bump(|q: &GeoAsianBump| q.price(), &g, &BumpSteps::default())?)
            } else {
                Ok(Greeks { price: g.price()?, ..Greeks::default() })
            }
        }
        TradeKind::American(v) => {
            if greeks {
                Ok(crate::american::american_fd_greeks(v)?)
            } else {
                Ok(Greeks { price: crate::american::american_fd(v)?, ..Greeks::default() })
            }
        }
        TradeKind::Heston(h) => {
            let q = HestonBump {
                option: HestonOption {
                    option: h.vanilla.option,
                    spot: h.vanilla.spot,
                    strike: h.vanilla.strike,
                    maturity: h.vanilla.maturity,
                    rate: h.vanilla.rate,
                    dividend: h.vanilla.dividend,
                },
                params: crate::heston::HestonParams {
                    v0: h.params.v0,
                    kappa: h.params.kappa,
                    theta: h.params.theta,
                    sigma: h.params.xi,
                    rho: h.params.rho,
                },
            };
            // The pricer calls the vol of variance `sigma`; the portfolio's column is `xi`.
            let price = |q: &HestonBump| {
                heston_price(&q.params, &q.option).map_err(|e| match e {
                    crate::heston::HestonError::InvalidParameter { name: "sigma", value, reason } => {
                        crate::heston::HestonError::InvalidParameter { name: "xi", value, reason }
                    }
                    other => other,
                })
            };
            if greeks {
                Ok(greeks_by_bump(price, &q, &BumpSteps::default())?)
            } else {
                Ok(Greeks { price: price(&q)?, ..Greeks::default() })
            }
        }
        TradeKind::AsianArith(_) => Err(PriceError::NoResult),
    }
}

/// A Heston trade for bump-and-revalue: `Vol` is the initial volatility `sqrt(v0)`.
#[derive(Debug, Clone, Copy)]
struct HestonBump {
    option: HestonOption,
    params: crate::heston::HestonParams,
}

impl Bumpable for HestonBump {
    fn get(&self, p: BumpParam) -> f64 {
        match p {
            BumpParam::Spot => self.option.spot,
            BumpParam::Vol => self.params.v0.sqrt(),
            BumpParam::Rate => self.option.rate,
            BumpParam::Maturity => self.option.maturity,
        }
    }
    fn set(&mut self, p: BumpParam, value: f64) {
        match p {
            BumpParam::Spot => self.option.spot = value,
            BumpParam::Vol => self.params.v0 = value * value,
            BumpParam::Rate => self.option.rate = value,
            BumpParam::Maturity => self.option.maturity = value,
        }
    }
}

/// The `method` column of a closed-form row.
fn analytic_method(trade: &Trade, engine: Engine) -> &'static str {
    match trade.kind {
        TradeKind::American(_) if american_as_european(trade, engine).is_none() => "pde",
        _ => "analytic",
    }
}

pub(super) fn row(id: &str, g: &Greeks, stderr: Option<f64>, greeks: bool, method: &str, backend: &str) -> PricedRow {
    let opt = |x: f64| greeks.then_some(x);
    PricedRow {
        id: id.to_owned(),
        price: g.price,
        stderr,
        delta: opt(g.delta),
        gamma: opt(g.gamma),
        vega: opt(g.vega),
        theta: opt(g.theta),
        rho: opt(g.rho),
        method: method.to_owned(),
        backend: backend.to_owned(),
    }
}

/// Prices one trade (see [`price_book`]).
///
/// # Errors
/// As the entries of [`price_book`]'s result.
pub fn price_trade<C: Compute + ?Sized>(
    compute: &C,
    trade: &Trade,
    config: &BookConfig,
) -> Result<PricedRow, PriceError> {
    let mut out = price_book(compute, std::slice::from_ref(trade), config, &mut |_| {});
    out.pop().unwrap_or(Err(PriceError::NoResult))
}

/// Trades per Monte Carlo batch when batching is off (one launch per job, as before batch
/// kernels): small enough for a live progress bar, large enough to keep every stream busy.
const MC_CHUNK_UNBATCHED: usize = 8;

/// Trades per Monte Carlo batch when batching is on: each chunk is one batch launch per stream
/// and kernel, so the device sees thousands of products at a time (the 20x example book is
/// about ten chunks) while the progress bar still moves.
const MC_CHUNK_BATCHED: usize = 4096;

/// How [`price_book_with`] runs the book (the defaults are [`price_book`]'s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BookRun {
    /// Batch launches for every Monte Carlo kind that has a batch kernel
    /// ([`crate::mc::McConfig::batch`]) in chunks of [`MC_CHUNK_BATCHED`] trades, and the
    /// closed forms on all host cores (rayon) while the device works. Off: one launch per job in
    /// chunks of 8 trades and the closed forms one after another on the calling thread (the
    /// pricer before batch kernels, for comparison: the prices are bitwise the same).
    pub batch: bool,
}

impl Default for BookRun {
    fn default() -> Self {
        Self { batch: true }
    }
}

/// Prices every trade of `trades` on `compute` (Monte Carlo rows) and the host (closed forms),
/// in input order; `progress(done)` is called with the number of trades finished so far.
///
/// Each entry is the priced row or why that trade has none: a parameter error, or a device error (which fails the Monte Carlo
/// rows of the batch it happened in, never the closed-form rows).
pub fn price_book<C: Compute + ?Sized>(
    compute: &C,
    trades: &[Trade],
    config: &BookConfig,
    progress: &mut dyn FnMut(usize),
) -> Vec<Result<PricedRow, PriceError>> {
    price_book_with(compute, trades, config, &BookRun::default(), progress)
}

/// [`price_book`] with the run settings `run`. With batching on, the closed-form rows are
/// evaluated on all host cores on a thread of their own while the calling thread enqueues and
/// collects the Monte Carlo batches, so host and device work overlap; every row's value is
/// independent of the others, so the prices are bitwise the same either way.
pub fn price_book_with<C: Compute + ?Sized>(
    compute: &C,
    trades: &[Trade],
    config: &BookConfig,
    run: &BookRun,
    progress: &mut dyn FnMut(usize),
) -> Vec<Result<PricedRow, PriceError>> {
    price_book_timed(compute, trades, config, run, progress).0
}

/// Where a book's rows were priced and how long each part took ([`price_book_timed`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BookTimes {
    /// Rows priced by closed form (or finite differences) on the host.
    pub host_rows: usize,
    /// Wall time of the host's closed forms (on all cores with batching on, beside the
    /// device's work; in sequence otherwise).
    pub host: std::time::Duration,
    /// Rows priced by Monte Carlo on the backend.
    pub device_rows: usize,
    /// Wall time from the first Monte Carlo chunk's enqueue to the last one's results.
    pub device: std::time::Duration,
    /// Device allocations made while the book was priced (the difference of the backend
    /// allocator's [`tenor_ports::AllocReport::allocations`] after and before).
    pub allocations: u64,
    /// Bytes those allocations asked for ([`tenor_ports::AllocReport::allocated_bytes`]).
    pub allocated_bytes: u64,
}

/// [`price_book_with`], also returning where the rows ran and how long each part took (the
/// summary of `tenor price` reports it, so the choice of where closed forms run is measured).
pub fn price_book_timed<C: Compute + ?Sized>(
    compute: &C,
    trades: &[Trade],
    config: &BookConfig,
    run: &BookRun,
    progress: &mut dyn FnMut(usize),
) -> (Vec<Result<PricedRow, PriceError>>, BookTimes) {
    let backend = compute.info().backend.clone();
    let allocated_before = compute.allocator().report();
    let mut out: Vec<Option<Result<PricedRow, PriceError>>> = Vec::with_capacity(trades.len());
    let mut mc_jobs: Vec<(usize, McProduct)> = Vec::new();
    let mut analytic_rows: Vec<usize> = Vec::new();
    let mut lsm_jobs: Vec<(usize, Vanilla)> = Vec::new();
    // Rows finished while routing (at expiry, or refused before any work).
    let mut finished = 0;
    for (i, t) in trades.iter().enumerate() {
        out.push(None);
        match route(t, config.engine) {
            Route::Expiry => {
                let g = super::expiry::at_expiry(t);
                out[i] = Some(Ok(row(&t.id, &g, None, config.greeks, "intrinsic", "host")));
                finished += 1;
            }
            Route::Analytic => analytic_rows.push(i),
            Route::Mc(p) => match work(&p, config) {
                Err(e) => {
                    out[i] = Some(Err(e));
                    finished += 1;
                }
                Ok(()) => mc_jobs.push((i, p)),
            },
            Route::Lsm(v) => match lsm_work(config) {
                Err(e) => {
                    out[i] = Some(Err(e));
                    finished += 1;
                }
                Ok(()) => lsm_jobs.push((i, v)),
            },
        }
    }
    let analytic_row = |i: &usize| {
        let t = &trades[*i];
        analytic(t, config.greeks, config.engine)
            .map(|g| row(&t.id, &g, None, config.greeks, analytic_method(t, config.engine), "host"))
    };
    let cfg = McConfig {
        paths: config.paths,
        seed: config.seed,
        steps: config.steps,
        streams: config.streams.max(1),
        precision: Precision::F64,
        control_variate: true,
        batch: run.batch,
    };
    let chunk = if run.batch { MC_CHUNK_BATCHED } else { MC_CHUNK_UNBATCHED };
    let analytic_done = finished + analytic_rows.len();
    let mut times = BookTimes {
        host_rows: analytic_rows.len(),
        device_rows: mc_jobs.len() + lsm_jobs.len(),
        ..BookTimes::default()
    };
    let price_mc = |out: &mut Vec<Option<Result<PricedRow, PriceError>>>, progress: &mut dyn FnMut(usize)| {
        let started = std::time::Instant::now();
        let mut done = analytic_done;
        for jobs in mc_jobs.chunks(chunk.max(cfg.streams)) {
            let products: Vec<McProduct> = jobs.iter().map(|(_, p)| *p).collect();
            let base = done;
            match mc::price_batch_with_progress(compute, &products, &cfg, config.greeks, &mut |k| {
                progress(base + k + 1)
            }) {
                Ok(results) => {
                    for ((i, _), r) in jobs.iter().zip(results) {
                        out[*i] = Some(r.map_err(PriceError::from).map(|v| {
                            let g = v.greeks.unwrap_or(Greeks { price: v.price.price, ..Greeks::default() });
                            row(&trades[*i].id, &g, Some(v.price.stderr), config.greeks, "mc", &backend)
                        }));
                    }
                }
                Err(e) => {
                    for (i, _) in jobs {
                        out[*i] = Some(Err(PriceError::Mc(e.clone())));
                    }
                }
            }
            done += jobs.len();
            progress(done);
        }
        if !lsm_jobs.is_empty() {
            let ids: Vec<&str> = lsm_jobs.iter().map(|(i, _)| trades[*i].id.as_str()).collect();
            let vs: Vec<Vanilla> = lsm_jobs.iter().map(|(_, v)| *v).collect();
            let rows = super::lsm_rows::price_lsm_rows(compute, &ids, &vs, config, run.batch);
            for ((i, _), r) in lsm_jobs.iter().zip(rows) {
                out[*i] = Some(r);
            }
            done += lsm_jobs.len();
            progress(done);
        }
        started.elapsed()
    };
    if run.batch {
        use rayon::prelude::*;
        let analytic_results = std::thread::scope(|scope| {
            let host = scope.spawn(|| {
                let started = std::time::Instant::now();
                let rows = analytic_rows.par_iter().map(analytic_row).collect::<Vec<_>>();
                (rows, started.elapsed())
            });
            times.device = price_mc(&mut out, progress);
            host.join()
        });
        // A panic in a closed form leaves its rows without a result (reported as NoResult).
        if let Ok((results, host_time)) = analytic_results {
            times.host = host_time;
            for (i, r) in analytic_rows.iter().zip(results) {
                out[*i] = Some(r);
            }
        }
    } else {
        let started = std::time::Instant::now();
        for i in &analytic_rows {
            out[*i] = Some(analytic_row(i));
        }
        times.host = started.elapsed();
        progress(analytic_done);
        times.device = price_mc(&mut out, progress);
    }
    progress(trades.len());
    let allocated_after = compute.allocator().report();
    times.allocations = allocated_after.allocations.saturating_sub(allocated_before.allocations);
    times.allocated_bytes = allocated_after.allocated_bytes.saturating_sub(allocated_before.allocated_bytes);
    (out.into_iter().map(|r| r.unwrap_or(Err(PriceError::NoResult)).and_then(finite)).collect(), times)
}

/// A Monte Carlo row's time steps per path (1, the grid, or the fixings) and valuations (1, or
/// 9 with Greeks): its work is `paths x steps x valuations` path-steps.
pub(crate) fn mc_steps_valuations(p: &McProduct, config: &BookConfig) -> (u64, u64) {
    let steps = u64::from(match p {
        McProduct::European(_) => 1,
        McProduct::Barrier(b) => match b.monitoring {
            Monitoring::Continuous => config.steps,
            Monitoring::Discrete(n) => n,
        },
        McProduct::AsianGeometric(a) | McProduct::AsianArithmetic(a) => a.schedule.count,
        McProduct::Heston(h) => config.steps.saturating_mul(h.substeps(config.steps)),
    });
    (steps, if config.greeks { GREEK_VALUATIONS } else { 1 })
}

/// An American Longstaff-Schwartz row's exercise dates and valuations (two passes over the
/// paths, regression and valuation, for the price and for each of the 8 bumped copies with
/// Greeks): its work is `paths x steps x valuations` path-steps.
pub(crate) fn lsm_steps_valuations(config: &BookConfig) -> (u64, u64) {
    let valuations = if config.greeks { GREEK_VALUATIONS } else { 1 };
    (u64::from(config.steps), super::lsm_rows::LSM_PASSES * valuations)
}

/// Checks an American Longstaff-Schwartz row's work against [`MAX_ROW_PATH_STEPS`].
fn lsm_work(config: &BookConfig) -> Result<(), PriceError> {
    let (steps, valuations) = lsm_steps_valuations(config);
    let path_steps = config.paths.saturating_mul(steps).saturating_mul(valuations);
    if path_steps > MAX_ROW_PATH_STEPS {
        return Err(PriceError::TooMuchWork { path_steps, paths: config.paths, steps, valuations });
    }
    Ok(())
}

/// Checks a Monte Carlo row's work against [`MAX_ROW_PATH_STEPS`] (a Heston row's error says
/// what its QE sub-steps make of `--steps`).
fn work(p: &McProduct, config: &BookConfig) -> Result<(), PriceError> {
    let (steps, valuations) = mc_steps_valuations(p, config);
    let path_steps = config.paths.saturating_mul(steps).saturating_mul(valuations);
    if path_steps <= MAX_ROW_PATH_STEPS {
        return Ok(());
    }
    Err(match p {
        McProduct::Heston(h) => PriceError::TooMuchHestonWork {
            path_steps,
            paths: config.paths,
            steps: u64::from(config.steps),
            substeps: u64::from(h.substeps(config.steps)),
            min_substeps: u64::from(h.substeps(1)),
            valuations,
        },
        _ => PriceError::TooMuchWork { path_steps, paths: config.paths, steps, valuations },
    })
}

/// A row whose price is not a finite number is an error, never output; a Greek that is not
/// finite (an extreme parameter overflowing a difference) is left empty.
fn finite(mut r: PricedRow) -> Result<PricedRow, PriceError> {
    if !r.price.is_finite() || r.stderr.is_some_and(|s| !s.is_finite()) {
        return Err(PriceError::NonFinite { price: r.price });
    }
    for g in [&mut r.delta, &mut r.gamma, &mut r.vega, &mut r.theta, &mut r.rho] {
        if g.is_some_and(|x| !x.is_finite()) {
            *g = None;
        }
    }
    Ok(r)
}
