//! The advisor: from a profile of a trace, a starting strategy per the decision table of the
//! seed notes (`shared/seed-notes.md`, "Which strategy"), with the measured reasons, suggested
//! bin exponents and a per-job cap.
//!
//! | pattern | choice |
//! | --- | --- |
//! | sizes cluster into known classes and fragmentation persists under the pool | slab with per-job caps |
//! | many host threads, per-thread streams | arena |
//! | many small allocations, high churn | binning for small sizes, pool for large |
//! | sizes vary widely and unpredictably (or none of the above) | the device's stream-ordered pool (`cudaMallocAsync`), nonzero release threshold |
//!
//! (Buffers used with GPUDirect RDMA stay on `cudaMalloc` outside any pool; a trace cannot show
//! that, so the advice says so when it applies to the caller.)

use std::collections::{BTreeMap, HashMap};

use crate::replay::ReplayResult;
use crate::trace::{Trace, TraceOp};

/// Allocations with a lifetime of fewer than this many allocator calls count as churn.
pub const SHORT_LIVED_OPS: u64 = 64;
/// Requests below this are "small" (PyTorch's small-pool limit).
pub const SMALL_BYTES: usize = 1 << 20;
/// Headroom on the largest job's high watermark for the per-job cap.
pub const CAP_HEADROOM: f64 = 1.25;

/// `bytes` rounded up to a multiple of `to`, saturating at the largest multiple that fits
/// (trace sizes come from files, so the rounding must not overflow).
fn round_up(bytes: usize, to: usize) -> usize {
    bytes.checked_next_multiple_of(to).unwrap_or(usize::MAX - usize::MAX % to)
}

/// What a trace shows about its allocation pattern.
#[derive(Debug, Clone)]
pub struct Profile {
    /// Successful allocations.
    pub allocs: usize,
    /// Requested sizes, sorted.
    sizes: Vec<usize>,
    /// Count of each requested size rounded up to 256 bytes.
    size_counts: BTreeMap<usize, usize>,
    /// Share of allocations below [`SMALL_BYTES`].
    pub small_share: f64,
    /// Share of allocations freed within [`SHORT_LIVED_OPS`] calls.
    pub short_lived_share: f64,
    /// Distinct streams.
    pub streams: usize,
    /// Distinct host threads.
    pub threads: usize,
    /// High watermark of requested bytes per job (job 0: outside any job).
    pub job_peaks: BTreeMap<u64, usize>,
}

impl Profile {
    /// Profiles a trace.
    pub fn from_trace(trace: &Trace) -> Self {
        let mut sizes = Vec::new();
        let mut size_counts = BTreeMap::new();
        let mut born: HashMap<u64, (u64, usize, u64)> = HashMap::new();
        let (mut short, mut freed) = (0usize, 0usize);
        let mut jobs: HashMap<u64, usize> = HashMap::new();
        let mut job_peaks = BTreeMap::new();
        // A set, not a list searched per event: linear in the number of distinct threads.
        let mut threads: std::collections::HashSet<u32> = std::collections::HashSet::new();
        for (i, e) in trace.events.iter().enumerate() {
            let i = i as u64;
            threads.insert(e.thread);
            match e.op {
                TraceOp::Alloc => {
                    sizes.push(e.bytes);
                    *size_counts.entry(round_up(e.bytes.max(1), 256)).or_insert(0) += 1;
                    born.insert(e.block, (i, e.bytes, e.job));
                    let cur = jobs.entry(e.job).or_insert(0);
                    *cur = cur.saturating_add(e.bytes);
                    let p = job_peaks.entry(e.job).or_insert(0);
                    *p = (*p).max(*cur);
                }
                TraceOp::Free => {
                    if let Some((t, bytes, job)) = born.remove(&e.block) {
                        freed += 1;
                        if i.saturating_sub(t) < SHORT_LIVED_OPS {
                            short += 1;
                        }
                        if let Some(c) = jobs.get_mut(&job) {
                            *c = c.saturating_sub(bytes);
                        }
                    }
                }
                TraceOp::Fail => {}
            }
        }
        sizes.sort_unstable();
        let allocs = sizes.len();
        let small = sizes.iter().filter(|&&s| s < SMALL_BYTES).count();
        Self {
            allocs,
            small_share: small as f64 / allocs.max(1) as f64,
            short_lived_share: short as f64 / freed.max(1) as f64,
            sizes,
            size_counts,
            streams: trace.streams().len(),
            threads: threads.len(),
            job_peaks,
        }
    }

    /// The `q`-quantile of requested sizes (0 when empty).
    pub fn quantile(&self, q: f64) -> usize {
        if self.sizes.is_empty() {
            return 0;
        }
        let i = ((self.sizes.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
        self.sizes[i]
    }

    /// Decades between the 5th and 95th percentile sizes.
    pub fn size_spread_decades(&self) -> f64 {
        (self.quantile(0.95).max(1) as f64 / self.quantile(0.05).max(1) as f64).log10()
    }

    /// Distinct sizes after rounding to 256 bytes.
    pub fn distinct_sizes(&self) -> usize {
        self.size_counts.len()
    }

    /// The most frequent sizes (rounded to 256 B) covering `coverage` of the allocations, at
    /// most `max` of them, ascending.
    pub fn classes(&self, coverage: f64, max: usize) -> Vec<usize> {
        let mut by_count: Vec<(usize, usize)> = self.size_counts.iter().map(|(s, c)| (*c, *s)).collect();
        by_count.sort_unstable_by(|a, b| b.cmp(a));
        let mut out = Vec::new();
        let mut covered = 0usize;
        for (c, s) in by_count.into_iter().take(max.max(1)) {
            if covered as f64 >= coverage * self.allocs as f64 {
                break;
            }
            covered = covered.saturating_add(c);
            out.push(s);
        }
        out.sort_unstable();
        out
    }

    /// Slab classes: the most frequent sizes covering 95 % of the allocations, plus the sizes
    /// carrying the most bytes until they cover 95 % of the bytes requested (at most 32).
    pub fn slab_classes(&self) -> Vec<usize> {
        let mut out = self.classes(0.95, 32);
        let total = self.size_counts.iter().fold(0usize, |a, (s, c)| a.saturating_add(s.saturating_mul(*c)));
        let mut by_bytes: Vec<(usize, usize)> =
            self.size_counts.iter().map(|(s, c)| (s.saturating_mul(*c), *s)).collect();
        by_bytes.sort_unstable_by(|a, b| b.cmp(a));
        let mut covered = out
            .iter()
            .filter_map(|s| self.size_counts.get(s).map(|c| s.saturating_mul(*c)))
            .fold(0usize, usize::saturating_add);
        for (bytes, s) in by_bytes {
            if out.len() >= 32 || covered as f64 >= 0.95 * total as f64 {
                break;
            }
            if !out.contains(&s) {
                out.push(s);
                covered = covered.saturating_add(bytes);
            }
        }
        out.sort_unstable();
        out
    }

    /// Share of allocations that the classes `classes(coverage, max)` serve exactly.
    pub fn class_coverage(&self, coverage: f64, max: usize) -> f64 {
        let cls = self.classes(coverage, max);
        let n: usize = cls.iter().filter_map(|c| self.size_counts.get(c)).sum();
        n as f64 / self.allocs.max(1) as f64
    }

    /// Suggested binning exponents: from the 5th percentile size (at least 2^8) to the 90th
    /// percentile of the small sizes (at most 2^22, RMM's example top bin); a trace of only
    /// large allocations gets the single top bin (22, 22), and its sizes go to the upstream.
    pub fn bin_exponents(&self) -> (u32, u32) {
        let lo = (usize::BITS - 1 - self.quantile(0.05).max(256).leading_zeros()).min(22);
        let small: Vec<usize> = self.sizes.iter().copied().filter(|&s| s < SMALL_BYTES).collect();
        let p90 = small.get((small.len().saturating_sub(1) as f64 * 0.9) as usize).copied().unwrap_or(256);
        let hi = p90.max(256).next_power_of_two().trailing_zeros().clamp(lo, 22);
        (lo, hi)
    }

    /// Suggested per-job cap: the largest job's high watermark with [`CAP_HEADROOM`], in whole
    /// MiB (`usize::MAX` when the trace has no jobs).
    pub fn job_cap(&self) -> usize {
        match self.job_peaks.iter().filter(|(j, _)| **j != 0).map(|(_, p)| *p).max() {
            Some(p) => round_up((p as f64 * CAP_HEADROOM) as usize, 1 << 20),
            None => usize::MAX,
        }
    }
}

/// The starting choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// The device's stream-ordered pool with a nonzero release threshold.
    DevicePool,
    /// Binning for small sizes, a pool for large ones.
    BinningOverPool,
    /// Arena sub-allocator.
    Arena,
    /// Size-class slab with per-job caps.
    Slab,
}

impl Choice {
    /// A one-line name.
    pub fn describe(self) -> &'static str {
        match self {
            Self::DevicePool => "cudaMallocAsync on the device's default pool, nonzero release threshold",
            Self::BinningOverPool => "binning for small sizes, coalescing pool for large ones",
            Self::Arena => "arena sub-allocator (per-thread small blocks, shared pool)",
            Self::Slab => "size-class slab with per-job caps",
        }
    }
}

/// A recommendation with its reasons.
#[derive(Debug, Clone)]
pub struct Advice {
    /// The starting strategy.
    pub choice: Choice,
    /// Measured reasons, one per line.
    pub reasons: Vec<String>,
    /// Suggested binning exponents (`2^lo..2^hi`).
    pub bin_exponents: (u32, u32),
    /// Suggested slab classes ([`Profile::slab_classes`]).
    pub classes: Vec<usize>,
    /// Suggested per-job cap in bytes.
    pub job_cap: usize,
}

/// Class coverage needed to call sizes "clustered".
pub const CLUSTER_COVERAGE: f64 = 0.9;
/// Most classes a "clustered" trace may need.
pub const CLUSTER_MAX_CLASSES: usize = 16;
/// Fragmentation under the pool that "persists".
pub const POOL_FRAGMENTATION: f64 = 0.10;
/// Peak reserved over peak used under the pool that counts as fragmentation persisting (once
/// the pool grew past its first chunk).
pub const POOL_OVERHEAD: f64 = 1.15;

/// Advice for `profile`, given a replay of the same trace under the [`crate::Pool`].
pub fn advise(profile: &Profile, pool: &ReplayResult) -> Advice {
    let coverage = profile.class_coverage(CLUSTER_COVERAGE, CLUSTER_MAX_CLASSES);
    let n_classes = profile.classes(CLUSTER_COVERAGE, CLUSTER_MAX_CLASSES).len();
    let mut reasons = vec![
        format!(
            "{} allocations, {} distinct sizes (256 B granularity), 5th-95th percentile {} B to {} B ({:.1} decades)",
            profile.allocs,
            profile.distinct_sizes(),
            profile.quantile(0.05),
            profile.quantile(0.95),
            profile.size_spread_decades()
        ),
        format!(
            "{:.0} % of allocations are under 1 MiB; {:.0} % are freed within {SHORT_LIVED_OPS} allocator calls",
            100.0 * profile.small_share,
            100.0 * profile.short_lived_share
        ),
        format!("{} streams on {} host threads", profile.streams, profile.threads),
        format!("{} classes cover {:.1} % of allocations exactly", n_classes, 100.0 * coverage),
        format!(
            "under the pool: peak reserved / peak used = {:.2}, mean fragmentation {:.1} % (max {:.1} %)",
            pool.overhead(),
            100.0 * pool.fragmentation_mean,
            100.0 * pool.fragmentation_max
        ),
    ];
    if pool.failures > 0 {
        reasons.push(format!(
            "{} allocation(s) failed under the pool (larger than the simulated device's memory); the figures \
             leave them out",
            pool.failures
        ));
    }
    let clustered = coverage >= CLUSTER_COVERAGE;
    // Overhead counts only once the pool grew past its first chunk: below that it is the
    // chunk size, not fragmentation.
    let grown = pool.peak_reserved > crate::PoolConfig::default().initial_bytes;
    let fragmented = pool.fragmentation_mean >= POOL_FRAGMENTATION || (grown && pool.overhead() >= POOL_OVERHEAD);
    let per_thread_streams = profile.threads >= 4 && profile.streams >= profile.threads;
    let churn = profile.small_share >= 0.5 && profile.short_lived_share >= 0.5;
    let choice = if clustered && fragmented {
        reasons.push("sizes cluster into known classes and fragmentation persists under the pool: slab".into());
        Choice::Slab
    } else if per_thread_streams {
        reasons.push("many host threads with per-thread streams: arena".into());
        Choice::Arena
    } else if churn {
        reasons.push("many small, short-lived allocations: binning for small sizes".into());
        Choice::BinningOverPool
    } else {
        reasons.push("no pattern that a sub-allocator exploits: the device's stream-ordered pool".into());
        Choice::DevicePool
    };
    reasons.push("buffers used with GPUDirect RDMA belong on cudaMalloc, outside any pool".into());
    Advice {
        choice,
        reasons,
        bin_exponents: profile.bin_exponents(),
        classes: profile.slab_classes(),
        job_cap: profile.job_cap(),
    }
}
