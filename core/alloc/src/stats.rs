//! The statistics adaptor: counts, bytes, size and lifetime histograms, current and peak used
//! and reserved, per-job high watermarks, largest free block and fragmentation.
//!
//! Modelled on RMM's `statistics_resource_adaptor` and PyTorch's `DeviceStats`, with the
//! fragmentation measure RMM's arena logs on failure:
//! `fragmentation = 1 - largest free block / free bytes` (0 when nothing is free).
//! It takes one mutex per call, so it belongs in profiling runs, not on a latency-critical path.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tenor_ports::{AllocError, AllocReport, Allocator, Block, Stream};

use crate::job::current_job;
use crate::order::{lock, FastMap};
use crate::{FreeSpace, Strategy};

/// Buckets of a log2 histogram: bucket `k` counts values `v` with `floor(log2(v)) == k`
/// (bucket 0 also holds 0).
pub const BUCKETS: usize = 64;

/// Bucket of `v` in a log2 histogram.
pub fn log2_bucket(v: u64) -> usize {
    (63 - v.max(1).leading_zeros()) as usize
}

/// Per-job figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobStats {
    /// Allocations made by the job.
    pub allocs: u64,
    /// Bytes requested by the job in total.
    pub bytes: u64,
    /// Bytes the job holds now.
    pub in_use: usize,
    /// High watermark of `in_use`.
    pub peak: usize,
}

/// A snapshot of the statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct StatsSnapshot {
    /// Successful allocations.
    pub allocs: u64,
    /// Frees.
    pub frees: u64,
    /// Refused allocations.
    pub failures: u64,
    /// Bytes requested by successful allocations, in total.
    pub bytes_allocated: u64,
    /// Bytes freed, in total (requested sizes).
    pub bytes_freed: u64,
    /// Requested bytes live now.
    pub used: usize,
    /// High watermark of `used`.
    pub peak_used: usize,
    /// Live allocations.
    pub live_blocks: usize,
    /// Bytes the wrapped allocator holds from its upstream (its report), and the high watermark.
    pub reserved: usize,
    /// High watermark of `reserved`.
    pub peak_reserved: usize,
    /// log2 histogram of requested sizes.
    pub size_hist: [u64; BUCKETS],
    /// log2 histogram of lifetimes in nanoseconds.
    pub lifetime_ns_hist: [u64; BUCKETS],
    /// log2 histogram of lifetimes counted in allocator calls between allocation and free.
    pub lifetime_ops_hist: [u64; BUCKETS],
    /// Per-job figures (job 0: outside any job).
    pub jobs: BTreeMap<u64, JobStats>,
    /// Free memory inside the strategy, when it can tell.
    pub free: Option<FreeSpace>,
}

impl StatsSnapshot {
    /// `1 - largest free / free bytes`, when the strategy reports free space.
    pub fn fragmentation(&self) -> Option<f64> {
        self.free.map(|f| f.fragmentation())
    }
}

#[derive(Debug)]
struct State {
    snap: StatsSnapshot,
    ops: u64,
    live: FastMap<u64, (usize, Instant, u64, u64)>,
}

/// Statistics over any allocator.
#[derive(Debug)]
pub struct Statistics {
    inner: Arc<dyn Allocator>,
    strategy: Option<Arc<dyn Strategy>>,
    state: Mutex<State>,
}

impl Statistics {
    /// Statistics over `inner` (free space and fragmentation unknown).
    pub fn new(inner: Arc<dyn Allocator>) -> Self {
        Self::build(inner, None)
    }
    /// Statistics over one of this crate's strategies, with free space and fragmentation.
    pub fn over_strategy(inner: Arc<dyn Strategy>) -> Self {
        let a: Arc<dyn Allocator> = inner.clone();
        Self::build(a, Some(inner))
    }
    fn build(inner: Arc<dyn Allocator>, strategy: Option<Arc<dyn Strategy>>) -> Self {
        let snap = StatsSnapshot {
            allocs: 0,
            frees: 0,
            failures: 0,
            bytes_allocated: 0,
            bytes_freed: 0,
            used: 0,
            peak_used: 0,
            live_blocks: 0,
            reserved: 0,
            peak_reserved: 0,
            size_hist: [0; BUCKETS],
            lifetime_ns_hist: [0; BUCKETS],
            lifetime_ops_hist: [0; BUCKETS],
            jobs: BTreeMap::new(),
            free: None,
        };
        Self { inner, strategy, state: Mutex::new(State { snap, ops: 0, live: FastMap::default() }) }
    }

    /// The statistics now.
    pub fn snapshot(&self) -> StatsSnapshot {
        let mut s = lock(&self.state).snap.clone();
        let r = self.inner.report();
        s.reserved = r.reserved;
        s.peak_reserved = r.peak_reserved;
        s.free = self.strategy.as_ref().map(|st| st.free_space());
        s
    }
}

// SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out

// once until freed, as the trait's contract asks.

unsafe impl Allocator for Statistics {
    fn name(&self) -> &str {
        "statistics"
    }

    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError> {
        let r = self.inner.allocate(bytes, stream);
        let job = current_job();
        let mut st = lock(&self.state);
        st.ops += 1;
        let ops = st.ops;
        match &r {
            Ok(b) => {
                st.live.insert(b.ptr, (bytes, Instant::now(), ops, job));
                let s = &mut st.snap;
                s.allocs += 1;
                s.bytes_allocated += bytes as u64;
                s.used += bytes;
                s.peak_used = s.peak_used.max(s.used);
                s.live_blocks += 1;
                s.size_hist[log2_bucket(bytes as u64)] += 1;
                let j = s.jobs.entry(job).or_default();
                j.allocs += 1;
                j.bytes += bytes as u64;
                j.in_use += bytes;
                j.peak = j.peak.max(j.in_use);
            }
            Err(_) => st.snap.failures += 1,
        }
        r
    }

    unsafe fn deallocate(&self, block: Block, stream: &Stream) -> Result<(), AllocError> {
        // SAFETY: this method's contract (the caller owns `block`), passed on unchanged.
        unsafe { self.inner.deallocate(block, stream) }?;
        let mut st = lock(&self.state);
        st.ops += 1;
        let ops = st.ops;
        if let Some((bytes, t0, op0, job)) = st.live.remove(&block.ptr) {
            let s = &mut st.snap;
            s.frees += 1;
            s.bytes_freed += bytes as u64;
            s.used -= bytes;
            s.live_blocks -= 1;
            let ns = u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX);
            s.lifetime_ns_hist[log2_bucket(ns)] += 1;
            s.lifetime_ops_hist[log2_bucket(ops - op0)] += 1;
            if let Some(j) = s.jobs.get_mut(&job) {
                j.in_use -= bytes;
            }
        }
        Ok(())
    }

    fn report(&self) -> AllocReport {
        self.inner.report()
    }
    fn reset_peaks(&self) {
        self.inner.reset_peaks();
        let mut st = lock(&self.state);
        st.snap.peak_used = st.snap.used;
        for j in st.snap.jobs.values_mut() {
            j.peak = j.in_use;
        }
    }
    fn trim(&self, keep_bytes: usize) -> Result<(), AllocError> {
        self.inner.trim(keep_bytes)
    }
}
