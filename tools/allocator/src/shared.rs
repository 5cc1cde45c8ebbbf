//! The one allocator of the process: a toolkit strategy over an upstream, the table of live
//! pointers, and the contract checks (zero bytes, double free, foreign pointer, out of memory).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tenor_alloc::{
    Arena, ArenaConfig, Binning, BinningConfig, Caching, CachingConfig, Pool, PoolConfig, Reuse, Slab, SlabConfig,
    Statistics,
};
use tenor_ports::{AllocError, Allocator, Block, Stream};

use crate::config::{Backend, Config, StrategyName};
use crate::error::{Code, Failure};
use crate::stats::Stats;

/// How many freed addresses are remembered to tell a double free from a foreign pointer.
const FREED_MEMORY: usize = 1 << 16;

/// A block handed out, with the stream it was allocated on.
#[derive(Debug)]
struct Live {
    block: Block,
    bytes: usize,
    stream: Stream,
}

/// The upstream's device and streams.
#[derive(Debug)]
enum Upstream {
    Cuda { ctx: Arc<tenor_cuda::Context> },
    Host,
}

/// Tenor's shared allocator behind the C functions.
#[derive(Debug)]
pub struct Shared {
    config: Config,
    device: i32,
    upstream: Upstream,
    top: Arc<Statistics>,
    live: Mutex<HashMap<u64, Live>>,
    freed: Mutex<HashSet<u64>>,
    streams: Mutex<HashMap<usize, Stream>>,
    handed_out: AtomicUsize,
    zero: AtomicU64,
    oom: AtomicU64,
    double: AtomicU64,
    foreign: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic inside a critical section is caught at the C boundary; the tables stay usable.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Shared {
    /// Opens the upstream on `device` and builds the configured strategy over it.
    ///
    /// # Errors
    /// [`Code::Backend`] when the device cannot be opened or its pool created.
    pub fn open(config: Config, device: i32) -> Result<Self, Failure> {
        let (upstream, base): (Upstream, Arc<dyn Allocator>) = match config.backend {
            Backend::Host => (Upstream::Host, Arc::new(tenor_cpu::HostAllocator::new())),
            Backend::Cuda => {
                let backend =
                    |e: tenor_ports::ComputeError| Failure::new(Code::Backend, format!("device {device}: {e}"));
                let ctx = tenor_cuda::Context::open(device).map_err(backend)?;
                let pool = tenor_cuda::alloc::PoolConfig::from_env().map_err(backend)?;
                let explicit = tenor_cuda::alloc::ExplicitPool::new(
                    ctx.clone(),
                    tenor_cuda::alloc::ExplicitPoolConfig { pool, ..Default::default() },
                )
                .map_err(backend)?;
                (Upstream::Cuda { ctx }, Arc::new(explicit))
            }
        };
        let top = Arc::new(build(&config, base));
        Ok(Self {
            config,
            device,
            upstream,
            top,
            live: Mutex::default(),
            freed: Mutex::default(),
            streams: Mutex::default(),
            handed_out: AtomicUsize::new(0),
            zero: AtomicU64::new(0),
            oom: AtomicU64::new(0),
            double: AtomicU64::new(0),
            foreign: AtomicU64::new(0),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    fn stream(&self, raw: usize) -> Stream {
        let mut streams = lock(&self.streams);
        streams
            .entry(raw)
            .or_insert_with(|| match &self.upstream {
                // SAFETY: the caller (PyTorch, CuPy) passes a live stream of the device's primary
                // context, or null for the legacy default stream, and keeps it alive while its
                // blocks are in flight.
                Upstream::Cuda { ctx } => unsafe { tenor_cuda::CudaStream::borrowed(ctx, raw as _) },
                Upstream::Host => Stream::new(Arc::new(tenor_cpu::CpuStream)),
            })
            .clone()
    }

    fn check_device(&self, device: i32) -> Result<(), Failure> {
        if device == self.device {
            Ok(())
        } else {
            Err(Failure::new(
                Code::BadArgument,
                format!("device {device}: this process's Tenor pool is on device {}", self.device),
            ))
        }
    }

    /// Allocates `bytes` on device `device` in the order of stream `raw_stream`.
    ///
    /// # Errors
    /// [`Code::ZeroBytes`], [`Code::OutOfMemory`] (with requested and available bytes),
    /// [`Code::BadArgument`] for another device, [`Code::Backend`].
    pub fn allocate(&self, bytes: usize, device: i32, raw_stream: usize) -> Result<u64, Failure> {
        self.check_device(device)?;
        if bytes == 0 {
            self.zero.fetch_add(1, Ordering::Relaxed);
            return Err(Failure::new(Code::ZeroBytes, "allocation of 0 bytes: nothing allocated, NULL returned"));
        }
        self.reserve_under_cap(bytes, device)?;
        let stream = self.stream(raw_stream);
        let block = self.top.allocate(bytes, &stream).map_err(|e| {
            self.handed_out.fetch_sub(bytes, Ordering::Relaxed);
            let code = match e {
                AllocError::OutOfMemory { .. } | AllocError::BudgetExceeded { .. } => Code::OutOfMemory,
                AllocError::InvalidSize { .. } => Code::BadArgument,
                _ => Code::Backend,
            };
            if code == Code::OutOfMemory {
                self.oom.fetch_add(1, Ordering::Relaxed);
            }
            Failure::new(code, format!("allocation of {bytes} bytes on device {device}: {e}"))
        })?;
        lock(&self.freed).remove(&block.ptr);
        lock(&self.live).insert(block.ptr, Live { block, bytes, stream });
        Ok(block.ptr)
    }

    /// Counts `bytes` as handed out, or refuses them when that would pass `TENOR_ALLOC_CAP`.
    fn reserve_under_cap(&self, bytes: usize, device: i32) -> Result<(), Failure> {
        let cap = self.config.cap.unwrap_or(usize::MAX);
        self.handed_out
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(bytes).filter(|&n| n <= cap)
            })
            .map(|_| ())
            .map_err(|used| {
                self.oom.fetch_add(1, Ordering::Relaxed);
                Failure::new(
                    Code::OutOfMemory,
                    format!(
                        "allocation of {bytes} bytes on device {device}: over TENOR_ALLOC_CAP ({cap} bytes, {} available)",
                        cap.saturating_sub(used)
                    ),
                )
            })
    }

    /// Frees `ptr` in the order of the stream it was allocated on. A null pointer is a no-op.
    ///
    /// # Errors
    /// [`Code::DoubleFree`] for a pointer freed before and not handed out since,
    /// [`Code::ForeignPointer`] for one this allocator never handed out, [`Code::BadArgument`]
    /// for another device; the allocator is unchanged by all three. [`Code::Backend`].
    pub fn deallocate(&self, ptr: u64, device: i32) -> Result<(), Failure> {
        if ptr == 0 {
            return Ok(());
        }
        self.check_device(device)?;
        let Some(live) = lock(&self.live).remove(&ptr) else {
            let (code, what, counter) = if lock(&self.freed).contains(&ptr) {
                (Code::DoubleFree, "double free", &self.double)
            } else {
                (Code::ForeignPointer, "foreign pointer (not allocated by libtenor_allocator)", &self.foreign)
            };
            counter.fetch_add(1, Ordering::Relaxed);
            return Err(Failure::new(code, format!("free of 0x{ptr:x} on device {device}: {what}; ignored")));
        };
        {
            let mut freed = lock(&self.freed);
            if freed.len() >= FREED_MEMORY {
                freed.clear();
            }
            freed.insert(ptr);
        }
        self.handed_out.fetch_sub(live.bytes, Ordering::Relaxed);
        // SAFETY: `live.block` was allocated from `top` for this pointer and handed only to the
        // foreign caller (no `DeviceBuffer` holds it); it has just left `live`, so it is freed
        // once. The foreign caller's side (no kernel of theirs still uses `ptr` outside stream
        // order) is the C ABI's documented contract, as `cudaFreeAsync`'s.
        unsafe { self.top.deallocate(live.block, &live.stream) }
            .map_err(|e| Failure::new(Code::Backend, format!("free of 0x{ptr:x} on device {device}: {e}")))?;
        if let Some(keep) = self.config.release_threshold {
            let r = self.top.report();
            if r.reserved.saturating_sub(r.used) > keep {
                self.top.trim(keep).map_err(|e| Failure::new(Code::Backend, format!("trim to {keep} bytes: {e}")))?;
            }
        }
        Ok(())
    }

    /// The statistics now.
    pub fn stats(&self) -> Stats {
        let s = self.top.snapshot();
        Stats {
            strategy: self.config.strategy.name().into(),
            device: self.device,
            allocs: s.allocs,
            frees: s.frees,
            failures: s.failures,
            used: s.used as u64,
            peak_used: s.peak_used as u64,
            reserved: s.reserved as u64,
            peak_reserved: s.peak_reserved as u64,
            live_blocks: s.live_blocks as u64,
            zero_byte_requests: self.zero.load(Ordering::Relaxed),
            out_of_memory: self.oom.load(Ordering::Relaxed),
            double_frees: self.double.load(Ordering::Relaxed),
            foreign_frees: self.foreign.load(Ordering::Relaxed),
        }
    }
}

/// The configured strategy over `upstream`, wrapped in [`Statistics`].
fn build(config: &Config, upstream: Arc<dyn Allocator>) -> Statistics {
    let follow = |r: Reuse| if config.deterministic { Reuse::FollowEvents } else { r };
    let pool_cfg = PoolConfig { reuse: follow(Reuse::Opportunistic), upstream_ordered: true, ..PoolConfig::default() };
    match config.strategy {
        StrategyName::None => Statistics::new(upstream),
        StrategyName::Pool => Statistics::over_strategy(Arc::new(Pool::new(upstream, pool_cfg))),
        StrategyName::Binning => {
            let pool: Arc<dyn Allocator> = Arc::new(Pool::new(upstream, pool_cfg));
            Statistics::over_strategy(Arc::new(Binning::new(
                pool,
                BinningConfig {
                    reuse: follow(Reuse::Opportunistic),
                    upstream_ordered: true,
                    ..BinningConfig::default()
                },
            )))
        }
        StrategyName::Arena => Statistics::over_strategy(Arc::new(Arena::new(
            upstream,
            ArenaConfig { pool: pool_cfg, ..ArenaConfig::default() },
        ))),
        StrategyName::Caching => Statistics::over_strategy(Arc::new(Caching::new(
            upstream,
            CachingConfig { reuse: follow(Reuse::Opportunistic), upstream_ordered: true, ..CachingConfig::default() },
        ))),
        StrategyName::Slab => {
            let d = SlabConfig::default();
            Statistics::over_strategy(Arc::new(Slab::new(
                upstream,
                SlabConfig {
                    release_threshold: config.release_threshold.unwrap_or(d.release_threshold),
                    reuse: follow(Reuse::FollowEvents),
                    upstream_ordered: true,
                    ..d
                },
            )))
        }
    }
}
