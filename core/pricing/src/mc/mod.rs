//! Monte Carlo pricing on the [`tenor_ports::Compute`] port.
//!
//! Engines are generic over `C: Compute + ?Sized` and run the fused kernels of `kernels/`
//! (`mc_european`, `mc_barrier`, `mc_asian` and their fp32 variants). Every estimator uses
//! antithetic pairs: a kernel work item is one pair `(Z, -Z)` and writes the pair average, so the
//! standard error computed from the `pairs` pair averages is correct for the antithetic
//! estimator (Glasserman, *Monte Carlo Methods in Financial Engineering*, 2004, sec. 4.2).
//! Random numbers are Philox4x32-10 indexed by (seed, pair, step); the fp64 European shares one
//! Philox call between pairs `2j` and `2j + 1`, which take its two independent Box-Muller
//! normals, so its pair averages stay independent and the same estimator applies. Kernels write
//! per-block partial sums, and the host adds them in block order: the same seed gives bitwise the same
//! result on every run, any thread count, any number of streams and any backend that follows
//! the reference implementation's arithmetic.
//!
//! * [`price`] prices one product; [`price_with_greeks`] adds bump-and-revalue Greeks with
//!   common random numbers ([`greeks`] documents the bump sizes). The engine knows no product:
//!   it prices any [`McPayoff`] (the product table's [`McProduct`] is one), whose arguments are
//!   one of the shapes its kernels take and whose job picks the kernel and the estimator
//!   (the crate's `european_job`, `barrier_job`, `asian_job` and `heston_job`).
//! * [`price_batch`] prices many products spread over [`McConfig::streams`] streams.
//! * The arithmetic Asian uses the geometric Asian as control variate (Kemna and Vorst 1990)
//!   with the variance-optimal coefficient estimated from the same partial sums.
//! * Heston European options ([`McProduct::Heston`]) are simulated by Andersen's (2008) QE
//!   scheme with martingale correction on [`McConfig::steps`] equal steps, antithetic pairs
//!   (normals negated, the exponential branch's uniform `u` as `1 - u`), kernel `heston_qe_mc`.
//! * Continuously monitored barriers use the Brownian-bridge survival probability on the grid
//!   of [`McConfig::steps`] steps; a spot already on or beyond the barrier is valued on the host
//!   (knock-out: the rebate, paid now; knock-in: the European option).

mod engine;
mod error;
mod fused;
pub mod greeks;
mod launch;
mod parity;
mod plan;
pub(crate) use parity::{asian as asian_job, barrier as barrier_job, european as european_job, heston as heston_job};
pub(crate) use parity::{asian_route, barrier_route, european_route, heston_route};
mod product;
mod stats;

pub use crate::products::McProduct;
pub use engine::{price, price_batch, price_batch_with_progress, price_with_greeks};
pub use error::McError;
pub use parity::{route as call_route, CallRoute};
pub use plan::Job as McJob;
pub use product::{
    AsianOption, BarrierOption, FixingSchedule, HestonMcOption, McArguments, McPayoff, Monitoring, QE_MAX_KAPPA_DT,
    QE_MAX_VARIANCE,
};
pub use stats::{control_variate, plain_estimate};

use tenor_ports::Precision;

/// Monte Carlo settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McConfig {
    /// Total paths (antithetic pairs times two); even and at least 4.
    pub paths: u64,
    /// Philox key: the same seed gives the same paths.
    pub seed: u64,
    /// Time steps of the grid for continuously monitored barriers (the Brownian-bridge
    /// correction makes the survival probability exact on any grid; the steps only place the
    /// mid-step payment time of a knock-out rebate), and of the Heston QE paths (a fixed count,
    /// so the time-bumped copies for theta keep the same random numbers). At least 1.
    pub steps: u32,
    /// Streams a batch is spread over (trade `i` on stream `i mod streams`); at least 1.
    pub streams: usize,
    /// Arithmetic of the kernels: fp64, or fp32 paths with fp64 partial sums (European and
    /// Asian only).
    pub precision: Precision,
    /// Whether the arithmetic Asian uses the geometric Asian as control variate (on by
    /// default; off gives the plain antithetic estimator, for comparison).
    pub control_variate: bool,
    /// Whether jobs of one stream with the same kernel, seed and pairs share one batch launch
    /// (`mc_european_batch`, `mc_barrier_batch`, `mc_asian_batch`, `heston_qe_batch`; on by
    /// default). Off gives one
    /// launch per job, bitwise the same prices (for comparison and the tests).
    pub batch: bool,
}

impl Default for McConfig {
    fn default() -> Self {
        Self {
            paths: 200_000,
            seed: 42,
            steps: 128,
            streams: 1,
            precision: Precision::F64,
            control_variate: true,
            batch: true,
        }
    }
}

impl McConfig {
    /// Antithetic pairs (`paths / 2`).
    pub fn pairs(&self) -> u64 {
        self.paths / 2
    }

    /// Checks the settings.
    ///
    /// # Errors
    /// [`McError::InvalidParameter`] naming `paths`, `steps` or `streams`.
    pub fn validate(&self) -> Result<(), McError> {
        if self.paths < 4 || !self.paths.is_multiple_of(2) {
            return Err(McError::invalid("paths", self.paths as f64, "must be even and at least 4"));
        }
        if self.steps == 0 {
            return Err(McError::invalid("steps", 0.0, "must be at least 1"));
        }
        if self.streams == 0 {
            return Err(McError::invalid("streams", 0.0, "must be at least 1"));
        }
        Ok(())
    }
}

/// A Monte Carlo price.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct McPrice {
    /// Estimated present value.
    pub price: f64,
    /// Standard error of `price` (0 for a value known on the host, e.g. a knocked-out rebate).
    pub stderr: f64,
    /// Paths simulated (0 when no simulation was needed).
    pub paths: u64,
}

/// A price with optional Greeks (`greeks.price` equals `price.price`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct McValuation {
    /// The price and its standard error.
    pub price: McPrice,
    /// Bump-and-revalue sensitivities, when asked for.
    pub greeks: Option<crate::types::Greeks>,
}
