//! Size-class slab with per-job caps: the last resort of the seed notes' decision table, for
//! pricing jobs whose sizes cluster into known classes while fragmentation persists under a
//! pool.
//!
//! Classes are given (from the profile's size histogram: see [`crate::advisor`]). Small
//! classes are carved from slabs of `slab_bytes`; a class at least that large takes one block
//! per upstream allocation, and once a stream's lane holds more than `release_threshold` free
//! bytes a freed block of such a class returns to the upstream, so reserved memory follows the
//! working set. Every job (the thread's [`crate::JobScope`]) is capped at `job_cap` bytes of
//! class memory.

use std::sync::Arc;

use tenor_ports::Allocator;

use crate::budget::{JobBudgets, JobUsage};
use crate::classes::{class_strategy, ClassCache, ClassSpec};
use crate::order::{Keying, Reuse};

/// Settings of [`Slab`].
#[derive(Debug, Clone)]
pub struct SlabConfig {
    /// Class sizes in bytes (rounded up to multiples of 256, sorted, deduplicated).
    pub classes: Vec<usize>,
    /// Slab size for carving small classes.
    pub slab_bytes: usize,
    /// Free bytes a stream's lane keeps before large-class blocks go back to the upstream.
    pub release_threshold: usize,
    /// Bytes each job may hold (`usize::MAX`: no cap).
    pub job_cap: usize,
    /// Cross-stream reuse policy.
    pub reuse: Reuse,
    /// Largest share of a class a request may leave unused; a request that fits no class that
    /// closely goes to the upstream exactly (1/8 by default).
    pub max_waste: f64,
    /// Whether the upstream orders reuse across streams itself (this crate's [`crate::Pool`],
    /// CUDA's stream-ordered pool); when not, returns to it wait for the freeing stream on the
    /// host.
    pub upstream_ordered: bool,
}

impl Default for SlabConfig {
    /// Power-of-two classes 256 B..64 MiB, 1 MiB slabs, 64 MiB release threshold, no cap,
    /// at most 1/8 of a class wasted.
    fn default() -> Self {
        Self {
            classes: (8..=26).map(|e| 1usize << e).collect(),
            slab_bytes: 1 << 20,
            release_threshold: 64 << 20,
            job_cap: usize::MAX,
            reuse: Reuse::FollowEvents,
            max_waste: 0.125,
            upstream_ordered: false,
        }
    }
}

/// A size-class slab allocator with per-job caps over an upstream.
#[derive(Debug)]
pub struct Slab {
    cache: ClassCache,
    budgets: Arc<JobBudgets>,
}

impl Slab {
    /// A slab over `upstream`; requests above the largest class go to `upstream` exactly (and
    /// count against the job's cap).
    pub fn new(upstream: Arc<dyn Allocator>, config: SlabConfig) -> Self {
        let mut sizes: Vec<usize> = config.classes.iter().map(|&c| c.max(1).next_multiple_of(256)).collect();
        sizes.sort_unstable();
        sizes.dedup();
        let budgets = Arc::new(JobBudgets::new(config.job_cap));
        let spec = ClassSpec {
            name: format!("slab[{} classes]", sizes.len()),
            sizes,
            chunk_bytes: config.slab_bytes,
            max_cached: config.release_threshold,
            reuse: config.reuse,
            max_waste: config.max_waste,
            keying: Keying::Stream,
            upstream_ordered: config.upstream_ordered,
        };
        Self { cache: ClassCache::new(spec, upstream, Some(budgets.clone())), budgets }
    }

    /// Sets one job's cap (other jobs keep the configured `job_cap`).
    pub fn set_job_cap(&self, job: u64, bytes: usize) {
        self.budgets.set_budget(job, bytes);
    }

    /// Bytes job `job` holds and its high watermark.
    pub fn job_usage(&self, job: u64) -> JobUsage {
        self.budgets.usage(job)
    }
}

class_strategy!(Slab);
