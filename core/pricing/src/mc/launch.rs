//! The Monte Carlo engine's launches: one owned parameter struct per kernel family, its fields
//! named as the manifest's arguments (`kernels/mc_*/kernel.toml`), lowered by name to the typed
//! launches generated from the manifests (`tenor_kernels::typed`, ADR 0015).
//!
//! A job's scalars are known before any buffer exists (the plan, the grouping of batches), and
//! the generated structs borrow their buffers, so the plan owns these structs and the engine
//! builds the typed launch when the partials buffer is allocated. Every argument is written by
//! name, here and in the plan: a manifest argument renamed, added or removed is a compile error
//! in this module, not a shifted position.

use tenor_kernels::typed::{
    HestonQeBatch, HestonQeMc, McAsian, McAsianBatch, McAsianF32, McBarrier, McBarrierBatch, McEuropean,
    McEuropeanBatch, McEuropeanF32,
};
use tenor_ports::{Compute, ComputeError, ComputeExt, DeviceBuffer, Kernel, Stream};

/// The scalars of `mc_european` (`R = f64`) and `mc_european_f32` (`R = f32`), as in their
/// manifests: antithetic pairs of terminal values `ln S_T = ln spot + drift +/- vol_sqrt_t Z`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct European<R> {
    pub seed: u64,
    pub pairs: u64,
    pub spot: R,
    pub strike: R,
    pub is_call: u32,
    pub drift: R,
    pub vol_sqrt_t: R,
    pub discount: R,
}

/// The scalars of `mc_barrier` (fp64 only), as in its manifest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Barrier {
    pub seed: u64,
    pub pairs: u64,
    pub steps: u32,
    pub spot: f64,
    pub strike: f64,
    pub barrier: f64,
    pub rebate: f64,
    pub is_call: u32,
    pub kind: u32,
    pub continuous: u32,
    pub drift_dt: f64,
    pub vol_sqrt_dt: f64,
    pub rate_dt: f64,
    pub discount: f64,
}

/// The scalars of `mc_asian` (`R = f64`) and `mc_asian_f32` (`R = f32`), as in their manifests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Asian<R> {
    pub seed: u64,
    pub pairs: u64,
    pub steps: u32,
    pub spot: R,
    pub strike: R,
    pub is_call: u32,
    pub spot_fixing: u32,
    pub drift_first: R,
    pub vol_first: R,
    pub drift_dt: R,
    pub vol_sqrt_dt: R,
    pub discount: R,
}

/// The scalars of `heston_qe_mc` (fp64 only), as in its manifest: antithetic pairs of
/// Andersen's (2008) QE paths on `steps` steps of `dt` years.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Heston {
    pub seed: u64,
    pub pairs: u64,
    pub steps: u32,
    pub spot: f64,
    pub strike: f64,
    pub is_call: u32,
    pub drift_dt: f64,
    pub dt: f64,
    pub v0: f64,
    pub kappa: f64,
    pub theta: f64,
    pub sigma: f64,
    pub rho: f64,
    pub discount: f64,
}

impl European<f64> {
    /// The fp32 kernel's arguments: every real rounded once from its fp64 value.
    pub fn to_f32(self) -> European<f32> {
        European {
            seed: self.seed,
            pairs: self.pairs,
            spot: self.spot as f32,
            strike: self.strike as f32,
            is_call: self.is_call,
            drift: self.drift as f32,
            vol_sqrt_t: self.vol_sqrt_t as f32,
            discount: self.discount as f32,
        }
    }
}

impl Asian<f64> {
    /// The fp32 kernel's arguments: every real rounded once from its fp64 value.
    pub fn to_f32(self) -> Asian<f32> {
        Asian {
            seed: self.seed,
            pairs: self.pairs,
            steps: self.steps,
            spot: self.spot as f32,
            strike: self.strike as f32,
            is_call: self.is_call,
            spot_fixing: self.spot_fixing,
            drift_first: self.drift_first as f32,
            vol_first: self.vol_first as f32,
            drift_dt: self.drift_dt as f32,
            vol_sqrt_dt: self.vol_sqrt_dt as f32,
            discount: self.discount as f32,
        }
    }
}

/// One launch of a fused Monte Carlo kernel: which kernel, with its scalars. The kernel writes
/// [`Launch::width`] partial sums per block into a buffer the engine allocates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Launch {
    /// `mc_european`.
    European(European<f64>),
    /// `mc_european_f32`.
    EuropeanF32(European<f32>),
    /// `mc_barrier`.
    Barrier(Barrier),
    /// `mc_asian`.
    Asian(Asian<f64>),
    /// `mc_asian_f32`.
    AsianF32(Asian<f32>),
    /// `heston_qe_mc`.
    Heston(Heston),
}

impl Launch {
    /// The kernel's registry name.
    pub fn kernel(&self) -> &'static str {
        match self {
            Self::European(_) => McEuropean::NAME,
            Self::EuropeanF32(_) => McEuropeanF32::NAME,
            Self::Barrier(_) => McBarrier::NAME,
            Self::Asian(_) => McAsian::NAME,
            Self::AsianF32(_) => McAsianF32::NAME,
            Self::Heston(_) => HestonQeMc::NAME,
        }
    }

    /// Philox seed.
    pub fn seed(&self) -> u64 {
        match self {
            Self::European(p) => p.seed,
            Self::EuropeanF32(p) => p.seed,
            Self::Barrier(p) => p.seed,
            Self::Asian(p) => p.seed,
            Self::AsianF32(p) => p.seed,
            Self::Heston(p) => p.seed,
        }
    }

    /// Antithetic pairs: the launch's work items.
    pub fn pairs(&self) -> u64 {
        match self {
            Self::European(p) => p.pairs,
            Self::EuropeanF32(p) => p.pairs,
            Self::Barrier(p) => p.pairs,
            Self::Asian(p) => p.pairs,
            Self::AsianF32(p) => p.pairs,
            Self::Heston(p) => p.pairs,
        }
    }

    /// Partial sums per block: 2 (sum, sum of squares), 5 for the Asian kernels (arithmetic
    /// and geometric sums, their squares and cross product).
    pub fn width(&self) -> usize {
        match self {
            Self::European(_) | Self::EuropeanF32(_) | Self::Barrier(_) | Self::Heston(_) => 2,
            Self::Asian(_) | Self::AsianF32(_) => 5,
        }
    }

    /// Loads the kernel on `dev` (the device caches it by name).
    ///
    /// # Errors
    /// As [`Compute::load_kernel`].
    pub fn load<C: Compute + ?Sized>(&self, dev: &C) -> Result<Kernel, ComputeError> {
        match self {
            Self::European(_) => McEuropean::load(dev),
            Self::EuropeanF32(_) => McEuropeanF32::load(dev),
            Self::Barrier(_) => McBarrier::load(dev),
            Self::Asian(_) => McAsian::load(dev),
            Self::AsianF32(_) => McAsianF32::load(dev),
            Self::Heston(_) => HestonQeMc::load(dev),
        }
    }

    /// Launches on `stream` with `kernel` (loaded by [`Self::load`]), writing `partials`
    /// ([`Self::width`] `f64` values per block).
    ///
    /// # Errors
    /// As the typed launch's `launch_loaded`: a kernel of another name, a short buffer, backend
    /// errors.
    pub fn enqueue<C: Compute + ?Sized>(
        &self,
        dev: &C,
        stream: &Stream,
        kernel: &Kernel,
        partials: &DeviceBuffer,
    ) -> Result<(), ComputeError> {
        match *self {
            Self::European(p) => McEuropean {
                partials,
                seed: p.seed,
                pairs: p.pairs,
                spot: p.spot,
                strike: p.strike,
                is_call: p.is_call,
                drift: p.drift,
                vol_sqrt_t: p.vol_sqrt_t,
                discount: p.discount,
            }
            .launch_loaded(dev, stream, kernel),
            Self::EuropeanF32(p) => McEuropeanF32 {
                partials,
                seed: p.seed,
                pairs: p.pairs,
                spot: p.spot,
                strike: p.strike,
                is_call: p.is_call,
                drift: p.drift,
                vol_sqrt_t: p.vol_sqrt_t,
                discount: p.discount,
            }
            .launch_loaded(dev, stream, kernel),
            Self::Barrier(p) => McBarrier {
                partials,
                seed: p.seed,
                pairs: p.pairs,
                steps: p.steps,
                spot: p.spot,
                strike: p.strike,
                barrier: p.barrier,
                rebate: p.rebate,
                is_call: p.is_call,
                kind: p.kind,
                continuous: p.continuous,
                drift_dt: p.drift_dt,
                vol_sqrt_dt: p.vol_sqrt_dt,
                rate_dt: p.rate_dt,
                discount: p.discount,
            }
            .launch_loaded(dev, stream, kernel),
            Self::Asian(p) => McAsian {
                partials,
                seed: p.seed,
                pairs: p.pairs,
                steps: p.steps,
                spot: p.spot,
                strike: p.strike,
                is_call: p.is_call,
                spot_fixing: p.spot_fixing,
                drift_first: p.drift_first,
                vol_first: p.vol_first,
                drift_dt: p.drift_dt,
                vol_sqrt_dt: p.vol_sqrt_dt,
                discount: p.discount,
            }
            .launch_loaded(dev, stream, kernel),
            Self::AsianF32(p) => McAsianF32 {
                partials,
                seed: p.seed,
                pairs: p.pairs,
                steps: p.steps,
                spot: p.spot,
                strike: p.strike,
                is_call: p.is_call,
                spot_fixing: p.spot_fixing,
                drift_first: p.drift_first,
                vol_first: p.vol_first,
                drift_dt: p.drift_dt,
                vol_sqrt_dt: p.vol_sqrt_dt,
                discount: p.discount,
            }
            .launch_loaded(dev, stream, kernel),
            Self::Heston(p) => HestonQeMc {
                partials,
                seed: p.seed,
                pairs: p.pairs,
                steps: p.steps,
                spot: p.spot,
                strike: p.strike,
                is_call: p.is_call,
                drift_dt: p.drift_dt,
                dt: p.dt,
                v0: p.v0,
                kappa: p.kappa,
                theta: p.theta,
                sigma: p.sigma,
                rho: p.rho,
                discount: p.discount,
            }
            .launch_loaded(dev, stream, kernel),
        }
    }
}

/// The fp64 kernels that have a batch kernel: the parameters of every product of a batch, one
/// variant per batch kernel (`mc_european_batch`, `mc_barrier_batch`, `mc_asian_batch`,
/// `heston_qe_batch`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Batch {
    /// Products of `mc_european_batch`.
    European(Vec<European<f64>>),
    /// Products of `mc_barrier_batch`.
    Barrier(Vec<Barrier>),
    /// Products of `mc_asian_batch`.
    Asian(Vec<Asian<f64>>),
    /// Products of `heston_qe_batch`.
    Heston(Vec<Heston>),
}

/// The batch kernel's name for `launch`'s kernel, when it has one (fp64 European, barrier,
/// Asian and Heston QE).
pub(crate) fn batch_kernel(launch: &Launch) -> Option<&'static str> {
    match launch {
        Launch::European(_) => Some(McEuropeanBatch::NAME),
        Launch::Barrier(_) => Some(McBarrierBatch::NAME),
        Launch::Asian(_) => Some(McAsianBatch::NAME),
        Launch::Heston(_) => Some(HestonQeBatch::NAME),
        Launch::EuropeanF32(_) | Launch::AsianF32(_) => None,
    }
}

/// Uploads one column: `f` of every product, in product order.
fn column<C: Compute + ?Sized, P, T: bytemuck::Pod>(
    dev: &C,
    stream: &Stream,
    products: &[P],
    f: impl Fn(&P) -> T,
) -> Result<DeviceBuffer, ComputeError> {
    dev.upload_slice(stream, &products.iter().map(f).collect::<Vec<T>>())
}

/// The shared scalars of a batch launch: product count, seed, pairs and work items.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    pub products: u32,
    pub seed: u64,
    pub pairs: u64,
    pub items: u64,
}

impl Batch {
    /// Loads the batch kernel on `dev`.
    ///
    /// # Errors
    /// As [`Compute::load_kernel`].
    pub fn load<C: Compute + ?Sized>(&self, dev: &C) -> Result<Kernel, ComputeError> {
        match self {
            Self::European(_) => McEuropeanBatch::load(dev),
            Self::Barrier(_) => McBarrierBatch::load(dev),
            Self::Asian(_) => McAsianBatch::load(dev),
            Self::Heston(_) => HestonQeBatch::load(dev),
        }
    }

    /// Uploads one array per parameter (in manifest order) and launches the batch kernel
    /// (`kernel`, loaded) on `stream`, writing `partials`. Returns the parameter buffers, to be
    /// kept alive until the partials are downloaded.
    ///
    /// # Errors
    /// Upload errors; as the typed launch's `launch_loaded`.
    pub fn enqueue<C: Compute + ?Sized>(
        &self,
        dev: &C,
        stream: &Stream,
        kernel: &Kernel,
        partials: &DeviceBuffer,
        shape: Shape,
    ) -> Result<Vec<DeviceBuffer>, ComputeError> {
        let Shape { products, seed, pairs, items } = shape;
        match self {
            Self::European(ps) => {
                let spot = column(dev, stream, ps, |p| p.spot)?;
                let strike = column(dev, stream, ps, |p| p.strike)?;
                let is_call = column(dev, stream, ps, |p| p.is_call)?;
                let drift = column(dev, stream, ps, |p| p.drift)?;
                let vol_sqrt_t = column(dev, stream, ps, |p| p.vol_sqrt_t)?;
                let discount = column(dev, stream, ps, |p| p.discount)?;
                McEuropeanBatch {
                    partials,
                    spot: &spot,
                    strike: &strike,
                    is_call: &is_call,
                    drift: &drift,
                    vol_sqrt_t: &vol_sqrt_t,
                    discount: &discount,
                    products,
                    seed,
                    pairs,
                    items,
                }
                .launch_loaded(dev, stream, kernel)?;
                Ok(vec![spot, strike, is_call, drift, vol_sqrt_t, discount])
            }
            Self::Barrier(ps) => {
                let steps = column(dev, stream, ps, |p| p.steps)?;
                let spot = column(dev, stream, ps, |p| p.spot)?;
                let strike = column(dev, stream, ps, |p| p.strike)?;
                let barrier = column(dev, stream, ps, |p| p.barrier)?;
                let rebate = column(dev, stream, ps, |p| p.rebate)?;
                let is_call = column(dev, stream, ps, |p| p.is_call)?;
                let kind = column(dev, stream, ps, |p| p.kind)?;
                let continuous = column(dev, stream, ps, |p| p.continuous)?;
                let drift_dt = column(dev, stream, ps, |p| p.drift_dt)?;
                let vol_sqrt_dt = column(dev, stream, ps, |p| p.vol_sqrt_dt)?;
                let rate_dt = column(dev, stream, ps, |p| p.rate_dt)?;
                let discount = column(dev, stream, ps, |p| p.discount)?;
                McBarrierBatch {
                    partials,
                    steps: &steps,
                    spot: &spot,
                    strike: &strike,
                    barrier: &barrier,
                    rebate: &rebate,
                    is_call: &is_call,
                    kind: &kind,
                    continuous: &continuous,
                    drift_dt: &drift_dt,
                    vol_sqrt_dt: &vol_sqrt_dt,
                    rate_dt: &rate_dt,
                    discount: &discount,
                    products,
                    seed,
                    pairs,
                    items,
                }
                .launch_loaded(dev, stream, kernel)?;
                Ok(vec![
                    steps,
                    spot,
                    strike,
                    barrier,
                    rebate,
                    is_call,
                    kind,
                    continuous,
                    drift_dt,
                    vol_sqrt_dt,
                    rate_dt,
                    discount,
                ])
            }
            Self::Asian(ps) => {
                let steps = column(dev, stream, ps, |p| p.steps)?;
                let spot = column(dev, stream, ps, |p| p.spot)?;
                let strike = column(dev, stream, ps, |p| p.strike)?;
                let is_call = column(dev, stream, ps, |p| p.is_call)?;
                let spot_fixing = column(dev, stream, ps, |p| p.spot_fixing)?;
                let drift_first = column(dev, stream, ps, |p| p.drift_first)?;
                let vol_first = column(dev, stream, ps, |p| p.vol_first)?;
                let drift_dt = column(dev, stream, ps, |p| p.drift_dt)?;
                let vol_sqrt_dt = column(dev, stream, ps, |p| p.vol_sqrt_dt)?;
                let discount = column(dev, stream, ps, |p| p.discount)?;
                McAsianBatch {
                    partials,
                    steps: &steps,
                    spot: &spot,
                    strike: &strike,
                    is_call: &is_call,
                    spot_fixing: &spot_fixing,
                    drift_first: &drift_first,
                    vol_first: &vol_first,
                    drift_dt: &drift_dt,
                    vol_sqrt_dt: &vol_sqrt_dt,
                    discount: &discount,
                    products,
                    seed,
                    pairs,
                    items,
                }
                .launch_loaded(dev, stream, kernel)?;
                Ok(vec![
                    steps,
                    spot,
                    strike,
                    is_call,
                    spot_fixing,
                    drift_first,
                    vol_first,
                    drift_dt,
                    vol_sqrt_dt,
                    discount,
                ])
            }
            Self::Heston(ps) => {
                let steps = column(dev, stream, ps, |p| p.steps)?;
                let spot = column(dev, stream, ps, |p| p.spot)?;
                let strike = column(dev, stream, ps, |p| p.strike)?;
                let is_call = column(dev, stream, ps, |p| p.is_call)?;
                let drift_dt = column(dev, stream, ps, |p| p.drift_dt)?;
                let dt = column(dev, stream, ps, |p| p.dt)?;
                let v0 = column(dev, stream, ps, |p| p.v0)?;
                let kappa = column(dev, stream, ps, |p| p.kappa)?;
                let theta = column(dev, stream, ps, |p| p.theta)?;
                let sigma = column(dev, stream, ps, |p| p.sigma)?;
                let rho = column(dev, stream, ps, |p| p.rho)?;
                let discount = column(dev, stream, ps, |p| p.discount)?;
                HestonQeBatch {
                    partials,
                    steps: &steps,
                    spot: &spot,
                    strike: &strike,
                    is_call: &is_call,
                    drift_dt: &drift_dt,
                    dt: &dt,
                    v0: &v0,
                    kappa: &kappa,
                    theta: &theta,
                    sigma: &sigma,
                    rho: &rho,
                    discount: &discount,
                    products,
                    seed,
                    pairs,
                    items,
                }
                .launch_loaded(dev, stream, kernel)?;
                Ok(vec![steps, spot, strike, is_call, drift_dt, dt, v0, kappa, theta, sigma, rho, discount])
            }
        }
    }
}
