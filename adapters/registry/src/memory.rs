//! A backend's allocators for the timed replay (`tenor alloc replay --backend`,
//! `tenor_alloc::device_replay`), so the command line opens device memory through the registry
//! like everything else (ADR 0016). A backend offers them through the `replay` column of its
//! row in [`crate::BACKENDS`].

use std::sync::Arc;

use tenor_ports::{Allocator, ComputeError, Stream};

use crate::{backend, unknown, BACKENDS};

/// A native allocator of a backend with the streams it is replayed on.
pub struct NativeTarget {
    /// Name in reports (`driver pool (threshold 0, reuse default)`).
    pub name: String,
    /// The allocator.
    pub allocator: Arc<dyn Allocator>,
    /// One stream per trace stream, on the allocator's device.
    pub streams: Vec<Stream>,
}

/// A fresh upstream for one toolkit strategy and the streams of its device.
pub type Upstream = (Arc<dyn Allocator>, Vec<Stream>);

/// The allocators of one backend for the timed replay.
pub struct ReplayMemory {
    /// The backend's own allocators, replayed as they are (none on the simulated device, whose
    /// bare allocator is not stream-ordered across streams).
    pub native: Vec<NativeTarget>,
    /// Opens a fresh upstream for one toolkit strategy (called once per strategy).
    pub upstream: Box<dyn Fn() -> Result<Upstream, ComputeError>>,
}

/// Opens the replay allocators of backend `name` with `lanes` streams each; `memory_bytes` sizes
/// a simulated device's memory.
///
/// # Errors
/// [`ComputeError::InvalidArgument`] for an unknown backend or one without replay allocators
/// (naming those with them); [`ComputeError::Unavailable`] where the backend was not built or
/// cannot run; device errors.
pub fn replay_memory(name: &str, lanes: usize, memory_bytes: usize) -> Result<ReplayMemory, ComputeError> {
    let b = backend(name).ok_or_else(|| unknown(name))?;
    match b.replay {
        Some(f) => f(lanes, memory_bytes),
        None => {
            let can: Vec<String> =
                BACKENDS.iter().filter(|b| b.replay.is_some()).map(|b| format!("`{}`", b.name)).collect();
            Err(ComputeError::InvalidArgument(format!("the timed replay runs on {}", can.join(" or "))))
        }
    }
}

fn streams_of<D: tenor_ports::CheckedDevice + ?Sized>(d: &D, lanes: usize) -> Result<Vec<Stream>, ComputeError> {
    (0..lanes).map(|_| d.create_stream()).collect()
}

/// The simulated device: no native target; each strategy on a fresh device (seed 1).
pub(crate) fn sim(lanes: usize, memory_bytes: usize) -> Result<ReplayMemory, ComputeError> {
    Ok(ReplayMemory {
        native: Vec::new(),
        upstream: Box::new(move || {
            let d = tenor_sim::checked_device(1, memory_bytes);
            Ok((d.memory(), streams_of(d.as_ref(), lanes)?))
        }),
    })
}

/// CUDA: Tenor's driver pool (`cuMemPoolCreate`, never the device's default pool) at release
/// threshold 0 and `u64::MAX`, each with the driver's reuse defaults and deterministic reuse;
/// plain `cuMemAlloc`/`cuMemFree`; and, for the toolkit strategies, a fresh pool at threshold
/// 0 with deterministic reuse. Device 0.
#[cfg(feature = "cuda")]
pub(crate) fn cuda(lanes: usize, _memory_bytes: usize) -> Result<ReplayMemory, ComputeError> {
    use tenor_cuda::alloc::{ExplicitPool, ExplicitPoolConfig, PlainAllocator, PoolConfig, ReusePolicy, Sharing};
    let ctx = tenor_cuda::Context::open(0)?;
    ctx.bind()?;
    let streams = {
        let ctx = ctx.clone();
        move || (0..lanes).map(|_| tenor_cuda::CudaStream::create(&ctx)).collect::<Result<Vec<_>, _>>()
    };
    let pool = {
        let ctx = ctx.clone();
        move |sharing, reuse| -> Result<Arc<dyn Allocator>, ComputeError> {
            let cfg = ExplicitPoolConfig { pool: PoolConfig { sharing, reuse }, ..ExplicitPoolConfig::default() };
            Ok(Arc::new(ExplicitPool::new(ctx.clone(), cfg)?))
        }
    };
    let mut native = Vec::new();
    for (sharing, t) in [(Sharing::Unknown, "0"), (Sharing::Exclusive, "max")] {
        for (reuse, r) in [(ReusePolicy::driver_default(), "default"), (ReusePolicy::deterministic(), "deterministic")]
        {
            native.push(NativeTarget {
                name: format!("driver pool (threshold {t}, reuse {r})"),
                allocator: pool(sharing, reuse)?,
                streams: streams()?,
            });
        }
    }
    native.push(NativeTarget {
        name: "cuMemAlloc/cuMemFree".into(),
        allocator: Arc::new(PlainAllocator::new(ctx.clone())),
        streams: streams()?,
    });
    Ok(ReplayMemory {
        native,
        upstream: Box::new(move || Ok((pool(Sharing::Unknown, ReusePolicy::deterministic())?, streams()?))),
    })
}

/// CUDA without the `cuda` feature.
#[cfg(not(feature = "cuda"))]
pub(crate) fn cuda(_lanes: usize, _memory_bytes: usize) -> Result<ReplayMemory, ComputeError> {
    Err(crate::not_built("cuda", "cuda"))
}
