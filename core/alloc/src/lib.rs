//! # tenor-alloc: Tenor's allocation toolkit
//!
//! Everything here sits behind the [`tenor_ports::Allocator`] port and works over any upstream
//! `Arc<dyn Allocator>` (a backend's stream-ordered pool, the simulated device, host memory).
//!
//! **Strategies** (all stream-ordered per the port contract; cross-stream reuse in
//! [`order`]): [`Pool`] (coalescing, per-stream free lists), [`Binning`] (power-of-two bins),
//! [`Arena`] (per-thread small blocks over a shared pool), [`Caching`] (CUB-style), [`Slab`]
//! (size classes with per-job caps).
//!
//! **Adaptors**: [`Statistics`], [`Recorder`] (traces, format in [`trace`]), [`Limit`] (hard cap),
//! [`Budgets`] (per-job budgets with begin/end-job calls and a thread-local [`JobScope`]),
//! [`FaultInjecting`] (a failing upstream for tests), [`Counting`] (a free upstream for
//! benchmarks).
//!
//! **Tools**: the synthetic pricing-desk trace [`desk`], [`device_replay`] (timed replay on
//! real streams: the CUDA run), [`replay`] of a trace against every strategy on a
//! hazard-checked device (the [`tenor_ports::CheckedDevice`] port: the simulated device), and
//! the [`advisor`]. Traces recorded from Tenor's own pricing kernels are the command line's
//! (`crate::alloc::pricing`). This crate depends on `tenor-ports` only (ADR 0016).
//!
//! **Reports**: a strategy's [`tenor_ports::Allocator::report`] gives exact current used and
//! reserved bytes (once no call is in flight) and the exact reserved high watermark; its
//! `peak_used` is the sum of the lock shards' and the threads' high watermarks (an upper bound,
//! kept without a shared counter on the fast path). Wrap the strategy in [`Statistics`] for the
//! exact used high watermark.
//!
//! **Fast path**: the size-class strategies (binning, arena, caching, slab) serve a thread's
//! allocation from the block it last freed in that class on that stream, and find a freed
//! block's record from its id, with no lock and one compare-and-swap per pair (see `front` and
//! `records` in the source).
//!
//! **Deterministic mode**: with [`Reuse::FollowEvents`] (the default everywhere but
//! [`Caching`]) every choice depends only on the sequence of calls, so the same trace replayed
//! twice gives the same addresses and the same inserted waits ([`replay::replay`] checks it).

pub mod advisor;
pub mod arena;
pub mod binning;
pub mod budget;
pub mod caching;
mod classes;
pub mod counting;
pub mod desk;
pub mod device_replay;
pub mod fault;
mod front;
mod ids;
pub mod job;
pub mod limit;
pub mod order;
pub mod pool;
mod records;
pub mod replay;
pub mod slab;
pub mod stats;
pub mod trace;

pub use arena::{Arena, ArenaConfig};
pub use binning::{Binning, BinningConfig};
pub use budget::{Budgets, JobBudgets, JobUsage};
pub use caching::{Caching, CachingConfig};
pub use counting::Counting;
pub use fault::FaultInjecting;
pub use job::{current_job, JobScope};
pub use limit::Limit;
pub use order::Reuse;
pub use pool::{Pool, PoolConfig};
pub use slab::{Slab, SlabConfig};
pub use stats::{Statistics, StatsSnapshot};
pub use trace::{Recorder, Trace, TraceEvent, TraceOp};

use tenor_ports::Allocator;

/// Free memory held inside a strategy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FreeSpace {
    /// Bytes reserved from the upstream and not handed out.
    pub free_bytes: usize,
    /// The largest request that free memory could serve without the upstream.
    pub largest_free: usize,
}

impl FreeSpace {
    /// `1 - largest_free / free_bytes` (RMM arena's fragmentation measure); 0 when nothing is
    /// free.
    pub fn fragmentation(&self) -> f64 {
        if self.free_bytes == 0 {
            0.0
        } else {
            1.0 - self.largest_free as f64 / self.free_bytes as f64
        }
    }
}

/// A strategy of this crate: an [`Allocator`] that also reports its inserted waits and free
/// space.
pub trait Strategy: Allocator {
    /// Stream waits the strategy inserted to reuse memory across streams.
    fn inserted_waits(&self) -> u64;
    /// The inserted waits in order, as (rank of the waiting stream, rank of the awaited one);
    /// ranks number streams in the order the strategy first saw them.
    fn wait_log(&self) -> Vec<(u64, u64)>;
    /// Free memory held now.
    fn free_space(&self) -> FreeSpace;
}
