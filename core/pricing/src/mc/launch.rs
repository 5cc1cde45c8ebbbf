//! The Monte Carlo engine's launches: the owned scalars of each kernel (`tenor_kernels::typed`,
//! generated from `kernels/mc_*/kernel.toml` and `kernels/heston_qe_mc/kernel.toml`, ADR 0015),
//! which kernel a job launches, and the batch kernel that launches many of them at once.
//!
//! A job's scalars are known before any buffer exists (the plan, the grouping of batches), so
//! the plan owns the generated `<Kernel>Scalars` and the engine builds the typed launch when the
//! partials buffer is allocated; a batch pushes its jobs' scalars into the generated
//! `<BatchKernel>Columns`, which upload one buffer per column and launch the batch kernel. No
//! argument is written here: the manifests name them, the plan sets them by name.

use tenor_kernels::typed::{
    HestonQeBatch, HestonQeBatchColumns, HestonQeMc, HestonQeMcBuffers, McAsian, McAsianBatch, McAsianBatchColumns,
    McAsianBuffers, McAsianF32, McAsianF32Buffers, McBarrier, McBarrierBatch, McBarrierBatchColumns, McBarrierBuffers,
    McEuropean, McEuropeanBatch, McEuropeanBatchColumns, McEuropeanBuffers, McEuropeanF32, McEuropeanF32Buffers,
};
use tenor_ports::{Compute, ComputeError, DeviceBuffer, Kernel, Stream};

/// The scalars of `heston_qe_mc` (fp64 only): antithetic pairs of Andersen's (2008) QE paths on
/// `steps` steps of `dt` years.
pub(crate) use tenor_kernels::typed::HestonQeMcScalars as Heston;
/// The scalars of `mc_asian_f32`.
pub(crate) use tenor_kernels::typed::McAsianF32Scalars as AsianF32;
/// The scalars of `mc_asian`; `to_f32` gives `mc_asian_f32`'s.
pub(crate) use tenor_kernels::typed::McAsianScalars as Asian;
/// The scalars of `mc_barrier` (fp64 only).
pub(crate) use tenor_kernels::typed::McBarrierScalars as Barrier;
/// The scalars of `mc_european_f32`.
pub(crate) use tenor_kernels::typed::McEuropeanF32Scalars as EuropeanF32;
/// The scalars of `mc_european`: antithetic pairs of terminal values
/// `ln S_T = ln spot + drift +/- vol_sqrt_t Z`; `to_f32` gives `mc_european_f32`'s.
pub(crate) use tenor_kernels::typed::McEuropeanScalars as European;

/// One launch of a fused Monte Carlo kernel: which kernel, with its scalars. The kernel writes
/// [`Launch::width`] partial sums per block into a buffer the engine allocates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Launch {
    /// `mc_european`.
    European(European),
    /// `mc_european_f32`.
    EuropeanF32(EuropeanF32),
    /// `mc_barrier`.
    Barrier(Barrier),
    /// `mc_asian`.
    Asian(Asian),
    /// `mc_asian_f32`.
    AsianF32(AsianF32),
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
            Self::European(p) => McEuropean::new(McEuropeanBuffers { partials }, p).launch_loaded(dev, stream, kernel),
            Self::EuropeanF32(p) => {
                McEuropeanF32::new(McEuropeanF32Buffers { partials }, p).launch_loaded(dev, stream, kernel)
            }
            Self::Barrier(p) => McBarrier::new(McBarrierBuffers { partials }, p).launch_loaded(dev, stream, kernel),
            Self::Asian(p) => McAsian::new(McAsianBuffers { partials }, p).launch_loaded(dev, stream, kernel),
            Self::AsianF32(p) => McAsianF32::new(McAsianF32Buffers { partials }, p).launch_loaded(dev, stream, kernel),
            Self::Heston(p) => HestonQeMc::new(HestonQeMcBuffers { partials }, p).launch_loaded(dev, stream, kernel),
        }
    }
}

/// The fp64 kernels that have a batch kernel: the scalars of every product of a batch as the
/// batch kernel's columns, one variant per batch kernel (`mc_european_batch`,
/// `mc_barrier_batch`, `mc_asian_batch`, `heston_qe_batch`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Batch {
    /// Products of `mc_european_batch`.
    European(McEuropeanBatchColumns),
    /// Products of `mc_barrier_batch`.
    Barrier(McBarrierBatchColumns),
    /// Products of `mc_asian_batch`.
    Asian(McAsianBatchColumns),
    /// Products of `heston_qe_batch`.
    Heston(HestonQeBatchColumns),
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

impl Batch {
    /// An empty batch of `launch`'s batch kernel (`None` when it has none).
    pub fn of(launch: &Launch) -> Option<Self> {
        match launch {
            Launch::European(_) => Some(Self::European(McEuropeanBatchColumns::default())),
            Launch::Barrier(_) => Some(Self::Barrier(McBarrierBatchColumns::default())),
            Launch::Asian(_) => Some(Self::Asian(McAsianBatchColumns::default())),
            Launch::Heston(_) => Some(Self::Heston(HestonQeBatchColumns::default())),
            Launch::EuropeanF32(_) | Launch::AsianF32(_) => None,
        }
    }

    /// Appends `launch`'s scalars as one product.
    ///
    /// # Errors
    /// [`ComputeError::InvalidArgument`] for a launch of another kernel, or whose seed or pair
    /// count differ from the batch's.
    pub fn push(&mut self, launch: &Launch) -> Result<(), ComputeError> {
        match (self, launch) {
            (Self::European(c), Launch::European(p)) => c.push(p),
            (Self::Barrier(c), Launch::Barrier(p)) => c.push(p),
            (Self::Asian(c), Launch::Asian(p)) => c.push(p),
            (Self::Heston(c), Launch::Heston(p)) => c.push(p),
            (batch, _) => Err(ComputeError::InvalidArgument(format!(
                "{} in a batch of {}: one batch has one kernel",
                launch.kernel(),
                batch.kernel()
            ))),
        }
    }

    /// The batch kernel's registry name.
    pub fn kernel(&self) -> &'static str {
        match self {
            Self::European(_) => McEuropeanBatch::NAME,
            Self::Barrier(_) => McBarrierBatch::NAME,
            Self::Asian(_) => McAsianBatch::NAME,
            Self::Heston(_) => HestonQeBatch::NAME,
        }
    }

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

    /// Uploads one array per column and launches the batch kernel (`kernel`, loaded) on
    /// `stream` over `items` work items, writing `partials`. Returns the column buffers, to be
    /// kept alive until the partials are downloaded.
    ///
    /// # Errors
    /// An empty batch; upload errors; as the typed launch's `launch_loaded`.
    pub fn enqueue<C: Compute + ?Sized>(
        &self,
        dev: &C,
        stream: &Stream,
        kernel: &Kernel,
        partials: &DeviceBuffer,
        items: u64,
    ) -> Result<Vec<DeviceBuffer>, ComputeError> {
        match self {
            Self::European(c) => c.enqueue(dev, stream, kernel, McEuropeanBuffers { partials }, items),
            Self::Barrier(c) => c.enqueue(dev, stream, kernel, McBarrierBuffers { partials }, items),
            Self::Asian(c) => c.enqueue(dev, stream, kernel, McAsianBuffers { partials }, items),
            Self::Heston(c) => c.enqueue(dev, stream, kernel, HestonQeMcBuffers { partials }, items),
        }
    }
}
