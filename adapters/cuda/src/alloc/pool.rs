//! The device's default pool, and the attribute handling every pool shares.

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cudarc::driver::{result as dr, sys};
use tenor_ports::{AllocError, AllocReport, Allocator, Block, ComputeError, Stream};

use crate::context::Context;
use crate::error::{alloc_err, check_alloc, drv};
use crate::stream::CudaStream;

/// How the GPU is shared, which sets the pool's release threshold
/// (`CU_MEMPOOL_ATTR_RELEASE_THRESHOLD`: reserved bytes the pool keeps across
/// synchronisations instead of returning them to the OS).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharing {
    /// The process owns the GPU: keep everything (threshold `u64::MAX`).
    Exclusive,
    /// Shared with cooperating processes: keep up to the known working set.
    Shared {
        /// Working-set size in bytes (read from the pool's high watermarks of a representative
        /// run).
        working_set: u64,
    },
    /// Shared with unknown processes: keep nothing (threshold 0, the driver's default).
    Unknown,
}

impl Sharing {
    /// The release threshold in bytes.
    pub fn release_threshold(self) -> u64 {
        match self {
            Self::Exclusive => u64::MAX,
            Self::Shared { working_set } => working_set,
            Self::Unknown => 0,
        }
    }

    /// Parses `exclusive`, `unknown` or `shared:<bytes>`.
    ///
    /// # Errors
    /// [`ComputeError::InvalidArgument`] naming the text.
    pub fn parse(text: &str) -> Result<Self, ComputeError> {
        match text.trim() {
            "exclusive" => Ok(Self::Exclusive),
            "unknown" => Ok(Self::Unknown),
            s => s
                .strip_prefix("shared:")
                .and_then(|b| b.trim().parse::<u64>().ok())
                .map(|working_set| Self::Shared { working_set })
                .ok_or_else(|| {
                    ComputeError::InvalidArgument(format!(
                        "sharing policy {s:?}: expected exclusive, unknown or shared:<working-set bytes>"
                    ))
                }),
        }
    }
}

/// The pool's cross-stream reuse attributes (CUDA Driver API, `CUmemPool_attribute`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReusePolicy {
    /// `CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES`: reuse memory freed on another stream
    /// once an event dependency orders the two.
    pub follow_event_dependencies: bool,
    /// `CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC`: reuse memory whose free already completed,
    /// with no dependency (timing-dependent, so run-to-run variance in placement).
    pub allow_opportunistic: bool,
    /// `CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES`: let the driver insert waits on the
    /// freeing stream (can serialise streams in unexpected ways).
    pub allow_internal_dependencies: bool,
}

impl ReusePolicy {
    /// The driver's default: all three on.
    pub fn driver_default() -> Self {
        Self { follow_event_dependencies: true, allow_opportunistic: true, allow_internal_dependencies: true }
    }
    /// Deterministic mode: opportunistic reuse and internal dependencies off (seed notes,
    /// "The default pool": for a desk that must reproduce last night's run).
    pub fn deterministic() -> Self {
        Self { follow_event_dependencies: true, allow_opportunistic: false, allow_internal_dependencies: false }
    }
}

/// Sharing and reuse policy of a pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolConfig {
    /// Sets the release threshold.
    pub sharing: Sharing,
    /// Cross-stream reuse.
    pub reuse: ReusePolicy,
}

impl Default for PoolConfig {
    /// Unknown sharing (threshold 0) and the driver's reuse defaults: what a library that
    /// knows nothing about its host process may assume.
    fn default() -> Self {
        Self { sharing: Sharing::Unknown, reuse: ReusePolicy::driver_default() }
    }
}

impl PoolConfig {
    /// From `TENOR_CUDA_SHARING` (`exclusive`, `unknown`, `shared:<bytes>`) and
    /// `TENOR_CUDA_DETERMINISTIC` (`1`/`true`/`yes`/`on`: [`ReusePolicy::deterministic`]; `0`/`false`/`no`/
    /// `off`/empty: the default); defaults otherwise.
    ///
    /// # Errors
    /// [`ComputeError::InvalidArgument`] for a malformed variable, naming it.
    pub fn from_env() -> Result<Self, ComputeError> {
        Self::from_vars(&|k| std::env::var(k).ok())
    }

    /// As [`PoolConfig::from_env`], with the variables looked up through `get`.
    ///
    /// # Errors
    /// As [`PoolConfig::from_env`].
    pub fn from_vars(get: &dyn Fn(&str) -> Option<String>) -> Result<Self, ComputeError> {
        let mut c = Self::default();
        if let Some(s) = get("TENOR_CUDA_SHARING") {
            c.sharing =
                Sharing::parse(&s).map_err(|e| ComputeError::InvalidArgument(format!("TENOR_CUDA_SHARING: {e}")))?;
        }
        if let Some(v) = get("TENOR_CUDA_DETERMINISTIC") {
            c.reuse = match v.trim() {
                "1" | "true" | "yes" | "on" => ReusePolicy::deterministic(),
                "0" | "false" | "no" | "off" | "" => c.reuse,
                other => {
                    return Err(ComputeError::InvalidArgument(format!(
                        "TENOR_CUDA_DETERMINISTIC: {other:?} is not a switch (use 1 or 0)"
                    )))
                }
            };
        }
        Ok(c)
    }
}

/// A memory pool handle with the attribute operations every pool shares.
#[derive(Debug)]
pub struct PoolHandle {
    pub(crate) raw: sys::CUmemoryPool,
    pub(crate) ctx: Arc<Context>,
}

// SAFETY: pool handles are process-wide; the context is bound before each use.
unsafe impl Send for PoolHandle {}
// SAFETY: as above.
unsafe impl Sync for PoolHandle {}

impl PoolHandle {
    /// The handle of `ctx`'s device's default pool (`cuDeviceGetDefaultMemPool`), nothing
    /// written: for reading its attributes and watermarks.
    ///
    /// # Errors
    /// Driver errors.
    pub fn device_default(ctx: Arc<Context>) -> Result<Self, ComputeError> {
        ctx.bind()?;
        // SAFETY: valid device handle.
        let raw = unsafe { dr::device::get_default_mem_pool(ctx.device()) }
            .map_err(|e| drv("cuDeviceGetDefaultMemPool", e))?;
        Ok(Self { raw, ctx })
    }

    fn set_u64(&self, attr: sys::CUmemPool_attribute, mut v: u64) -> Result<(), ComputeError> {
        self.ctx.bind()?;
        // SAFETY: the attribute takes a cuuint64_t.
        unsafe { dr::mem_pool::set_attribute(self.raw, attr, (&mut v as *mut u64).cast::<c_void>()) }
            .map_err(|e| drv("cuMemPoolSetAttribute", e))
    }
    fn set_flag(&self, attr: sys::CUmemPool_attribute, on: bool) -> Result<(), ComputeError> {
        self.ctx.bind()?;
        let mut v: i32 = i32::from(on);
        // SAFETY: the reuse attributes take an int.
        unsafe { dr::mem_pool::set_attribute(self.raw, attr, (&mut v as *mut i32).cast::<c_void>()) }
            .map_err(|e| drv("cuMemPoolSetAttribute", e))
    }
    fn get_u64(&self, attr: sys::CUmemPool_attribute) -> Result<u64, ComputeError> {
        self.ctx.bind()?;
        let mut v = 0u64;
        // SAFETY: the memory attributes are cuuint64_t.
        unsafe { dr::mem_pool::get_attribute(self.raw, attr, (&mut v as *mut u64).cast::<c_void>()) }
            .map_err(|e| drv("cuMemPoolGetAttribute", e))?;
        Ok(v)
    }
    fn get_flag(&self, attr: sys::CUmemPool_attribute) -> Result<bool, ComputeError> {
        self.ctx.bind()?;
        let mut v = 0i32;
        // SAFETY: the reuse attributes are int.
        unsafe { dr::mem_pool::get_attribute(self.raw, attr, (&mut v as *mut i32).cast::<c_void>()) }
            .map_err(|e| drv("cuMemPoolGetAttribute", e))?;
        Ok(v != 0)
    }

    /// Applies a configuration: release threshold and reuse attributes.
    ///
    /// # Errors
    /// Driver errors.
    pub fn configure(&self, c: &PoolConfig) -> Result<(), ComputeError> {
        use sys::CUmemPool_attribute::*;
        self.set_u64(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, c.sharing.release_threshold())?;
        self.set_flag(CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, c.reuse.follow_event_dependencies)?;
        self.set_flag(CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, c.reuse.allow_opportunistic)?;
        self.set_flag(CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, c.reuse.allow_internal_dependencies)
    }

    /// The pool's current release threshold and reuse attributes, read back from the driver.
    ///
    /// # Errors
    /// Driver errors.
    pub fn read_config(&self) -> Result<(u64, ReusePolicy), ComputeError> {
        use sys::CUmemPool_attribute::*;
        Ok((
            self.get_u64(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)?,
            ReusePolicy {
                follow_event_dependencies: self.get_flag(CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES)?,
                allow_opportunistic: self.get_flag(CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC)?,
                allow_internal_dependencies: self.get_flag(CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES)?,
            },
        ))
    }

    /// Used/reserved bytes and their high watermarks (`CU_MEMPOOL_ATTR_*_MEM_*`).
    ///
    /// # Errors
    /// Driver errors.
    pub fn usage(&self) -> Result<AllocReport, ComputeError> {
        use sys::CUmemPool_attribute::*;
        let g = |a| self.get_u64(a).map(|v| usize::try_from(v).unwrap_or(usize::MAX));
        Ok(AllocReport {
            used: g(CU_MEMPOOL_ATTR_USED_MEM_CURRENT)?,
            reserved: g(CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)?,
            peak_used: g(CU_MEMPOOL_ATTR_USED_MEM_HIGH)?,
            peak_reserved: g(CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH)?,
            live_blocks: 0,
            ..AllocReport::default()
        })
    }

    /// Resets both high watermarks to the current values (the driver accepts only 0, which
    /// it documents as "reset").
    ///
    /// # Errors
    /// Driver errors.
    pub fn reset_peaks(&self) -> Result<(), ComputeError> {
        use sys::CUmemPool_attribute::*;
        self.set_u64(CU_MEMPOOL_ATTR_USED_MEM_HIGH, 0)?;
        self.set_u64(CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, 0)
    }

    /// Releases unused reserved memory above `keep_bytes` (`cuMemPoolTrimTo`).
    ///
    /// # Errors
    /// Driver errors.
    pub fn trim(&self, keep_bytes: usize) -> Result<(), AllocError> {
        self.ctx.bind().map_err(|e| AllocError::Stream(e.to_string()))?;
        // SAFETY: live pool.
        unsafe { dr::mem_pool::trim_to(self.raw, keep_bytes) }.map_err(|e| alloc_err("cuMemPoolTrimTo", 0, e))
    }

    pub(crate) fn alloc_from(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError> {
        let s = raw_stream(stream)?;
        let size = bytes.max(1);
        self.ctx.bind().map_err(|e| AllocError::Stream(e.to_string()))?;
        let mut p = 0u64;
        // SAFETY: live pool and stream of this context.
        check_alloc("cuMemAllocFromPoolAsync", bytes, unsafe {
            sys::cuMemAllocFromPoolAsync(&mut p, size, self.raw, s)
        })?;
        Ok(Block::new(p, size))
    }
}

/// The CUDA stream handle behind a port stream, for allocators.
pub(crate) fn raw_stream(stream: &Stream) -> Result<sys::CUstream, AllocError> {
    stream
        .downcast::<CudaStream>()
        .map(CudaStream::raw)
        .ok_or_else(|| AllocError::Stream(format!("{stream:?} is not a CUDA stream")))
}

/// Stream-ordered free of a pool block (`cuMemFreeAsync`).
pub(crate) fn free_async(ctx: &Context, block: Block, stream: &Stream) -> Result<(), AllocError> {
    let s = raw_stream(stream)?;
    ctx.bind().map_err(|e| AllocError::Stream(e.to_string()))?;
    // SAFETY: `block` came from a stream-ordered allocation of this context; the caller
    // ordered all its uses before `stream` (the Allocator contract).
    check_alloc("cuMemFreeAsync", block.size, unsafe { sys::cuMemFreeAsync(block.ptr, s) })
}

/// The device's default memory pool (`cuDeviceGetDefaultMemPool`), allocated from with
/// `cuMemAllocAsync` and freed with `cuMemFreeAsync`. Tenor never changes the device's current
/// pool, so `cuMemAllocAsync` draws from this one.
#[derive(Debug)]
pub struct DefaultPool {
    pool: PoolHandle,
    config: PoolConfig,
    live: AtomicUsize,
}

impl DefaultPool {
    /// The default pool of `ctx`'s device, configured by `config`. The attributes belong to the
    /// device's pool, so writing them affects every user of it in this process: the backend
    /// opens this pool only on request (`TENOR_CUDA_POOL=device`, [`super::PoolChoice`]).
    ///
    /// # Errors
    /// Driver errors.
    pub fn new(ctx: Arc<Context>, config: PoolConfig) -> Result<Self, ComputeError> {
        let pool = PoolHandle::device_default(ctx)?;
        pool.configure(&config)?;
        Ok(Self { pool, config, live: AtomicUsize::new(0) })
    }

    /// The pool handle (attributes, watermarks).
    pub fn handle(&self) -> &PoolHandle {
        &self.pool
    }

    /// The configuration applied at construction.
    pub fn config(&self) -> PoolConfig {
        self.config
    }
}

// SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out

// once until freed, as the trait's contract asks.

unsafe impl Allocator for DefaultPool {
    fn name(&self) -> &str {
        match (self.config.sharing, self.config.reuse == ReusePolicy::deterministic()) {
            (Sharing::Exclusive, false) => "cuda-default-pool(max)",
            (Sharing::Exclusive, true) => "cuda-default-pool(max,deterministic)",
            (Sharing::Shared { .. }, false) => "cuda-default-pool(working-set)",
            (Sharing::Shared { .. }, true) => "cuda-default-pool(working-set,deterministic)",
            (Sharing::Unknown, false) => "cuda-default-pool(0)",
            (Sharing::Unknown, true) => "cuda-default-pool(0,deterministic)",
        }
    }

    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError> {
        let s = raw_stream(stream)?;
        let size = bytes.max(1);
        self.pool.ctx.bind().map_err(|e| AllocError::Stream(e.to_string()))?;
        let mut p = 0u64;
        // SAFETY: live stream of this context.
        check_alloc("cuMemAllocAsync", bytes, unsafe { sys::cuMemAllocAsync(&mut p, size, s) })?;
        self.live.fetch_add(1, Ordering::Relaxed);
        Ok(Block::new(p, size))
    }

    unsafe fn deallocate(&self, block: Block, stream: &Stream) -> Result<(), AllocError> {
        free_async(&self.pool.ctx, block, stream)?;
        self.live.fetch_sub(1, Ordering::Relaxed);
        Ok(())
    }

    fn report(&self) -> AllocReport {
        let mut r = self.pool.usage().unwrap_or_default();
        r.live_blocks = self.live.load(Ordering::Relaxed);
        r
    }

    fn reset_peaks(&self) {
        let _ = self.pool.reset_peaks();
    }

    fn trim(&self, keep_bytes: usize) -> Result<(), AllocError> {
        self.pool.trim(keep_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(list: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| list.iter().find(|(n, _)| *n == k).map(|(_, v)| (*v).to_owned())
    }

    #[test]
    fn the_deterministic_switch_reads_common_spellings_and_refuses_others() {
        let det = |v| PoolConfig::from_vars(&vars(&[("TENOR_CUDA_DETERMINISTIC", v)])).map(|c| c.reuse);
        for on in ["1", "true", "yes", "on"] {
            assert_eq!(det(on).ok(), Some(ReusePolicy::deterministic()), "{on}");
        }
        for off in ["0", "false", "no", "off", ""] {
            assert_eq!(det(off).ok(), Some(PoolConfig::default().reuse), "{off}");
        }
        let err = det("maybe").expect_err("not a switch");
        assert!(err.to_string().contains("TENOR_CUDA_DETERMINISTIC"), "{err}");
        assert_eq!(PoolConfig::from_vars(&vars(&[])).ok(), Some(PoolConfig::default()));
    }
}
