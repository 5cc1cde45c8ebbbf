//! Arena: per-thread small blocks over a shared large pool (RMM's `arena_memory_resource`;
//! Hoard, jemalloc and tcmalloc in its design notes).
//!
//! Requests up to `small_max` bytes are rounded to fine size classes (256 B steps to 4 KiB,
//! then four classes per power of two, at most 1/8 waste) and served from the calling thread's
//! lanes, carved from superblocks taken from the shared [`Pool`]. Larger requests go to the
//! pool itself. Threads never share a lock on the small path; streams are still ordered per
//! lane (see [`crate::order`]).

use std::sync::Arc;

use tenor_ports::{AllocError, AllocReport, Allocator, Block, Stream};

use crate::classes::{ClassCache, ClassSpec};
use crate::order::{Keying, Reuse};
use crate::pool::{Pool, PoolConfig};
use crate::{FreeSpace, Strategy};

/// Settings of [`Arena`].
#[derive(Debug, Clone, Copy)]
pub struct ArenaConfig {
    /// Largest request served from the per-thread arenas.
    pub small_max: usize,
    /// Superblock size taken from the shared pool for carving (RMM: at least 1 MiB).
    pub superblock_bytes: usize,
    /// The shared pool's settings.
    pub pool: PoolConfig,
}

impl Default for ArenaConfig {
    fn default() -> Self {
        Self { small_max: 256 << 10, superblock_bytes: 1 << 20, pool: PoolConfig::default() }
    }
}

/// Size classes of the small path: 256 B steps to 4 KiB, then four per power of two.
pub fn arena_classes(small_max: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (1..=16).map(|k| k * 256).collect();
    let mut base = 4096usize;
    while base < small_max {
        for q in 1..=4 {
            v.push(base + base / 4 * q);
        }
        base *= 2;
    }
    v.retain(|&c| c <= small_max.max(256));
    v
}

/// Per-thread small-block arenas over a shared coalescing pool.
#[derive(Debug)]
pub struct Arena {
    small: ClassCache,
    pool: Arc<Pool>,
}

impl Arena {
    /// An arena over `upstream`.
    pub fn new(upstream: Arc<dyn Allocator>, config: ArenaConfig) -> Self {
        let pool = Arc::new(Pool::new(upstream, config.pool));
        let reuse = config.pool.reuse;
        let spec = ClassSpec {
            name: "arena".into(),
            sizes: arena_classes(config.small_max),
            chunk_bytes: config.superblock_bytes,
            max_cached: usize::MAX,
            reuse: if reuse == Reuse::Opportunistic { Reuse::Opportunistic } else { Reuse::FollowEvents },
            max_waste: 1.0,
            keying: Keying::Thread,
            upstream_ordered: true,
        };
        let p: Arc<dyn Allocator> = pool.clone();
        Self { small: ClassCache::new(spec, p, None), pool }
    }
}

// SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out

// once until freed, as the trait's contract asks.

unsafe impl Allocator for Arena {
    fn name(&self) -> &str {
        "arena"
    }
    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError> {
        self.small.allocate(bytes, stream)
    }
    unsafe fn deallocate(&self, block: Block, stream: &Stream) -> Result<(), AllocError> {
        // SAFETY: this method's contract (the caller owns `block`), passed on unchanged.
        unsafe { self.small.deallocate(block, stream) }
    }
    fn report(&self) -> AllocReport {
        let s = self.small.report();
        let p = self.pool.report();
        AllocReport {
            used: s.used,
            reserved: p.reserved,
            peak_used: s.peak_used,
            peak_reserved: p.peak_reserved,
            live_blocks: s.live_blocks,
            ..AllocReport::default()
        }
    }
    fn reset_peaks(&self) {
        self.small.reset_peaks();
        self.pool.reset_peaks();
    }
    fn trim(&self, keep_bytes: usize) -> Result<(), AllocError> {
        self.small.release_free(0)?;
        self.pool.trim(keep_bytes)
    }
}

impl Strategy for Arena {
    fn inserted_waits(&self) -> u64 {
        self.small.waits() + self.pool.inserted_waits()
    }
    fn wait_log(&self) -> Vec<(u64, u64)> {
        let mut v = self.small.wait_log();
        v.extend(self.pool.wait_log());
        v
    }
    fn free_space(&self) -> FreeSpace {
        let p = self.pool.free_space();
        let s = self.small.free_space();
        FreeSpace { free_bytes: p.free_bytes + s.free_bytes, largest_free: p.largest_free.max(s.largest_free) }
    }
}
