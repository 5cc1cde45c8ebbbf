//! Replay of an allocation trace against every strategy on a hazard-checked device.
//!
//! The target is the [`CheckedDevice`] port (the simulated device, `tenor-sim`, implements it;
//! `tenor_registry::checked_device` opens one), so this crate needs no adapter (ADR 0016).
//! Each replay opens a fresh device (so addresses start at the same base), one stream per
//! trace stream, and the strategy over the device's own allocator. Every allocation is followed
//! by a write of the block on its stream and every free is preceded by a read on the freeing
//! stream ([`CheckedDevice::touch`]), so the device's hazard checker (the simulator's vector
//! clocks) sees a kernel use of each block; a free on a stream other than
//! the allocating one is first ordered after it (the caller's duty under the port contract).
//! The host synchronises every `sync_every` events, as a desk does per batch.
//!
//! Reported per strategy: peak reserved (bytes the strategy held from the device), peak used
//! (bytes requested by live allocations), fragmentation (`1 - largest free / free`, sampled),
//! inserted waits, host time per allocator call, hazards, and whether every byte went back to
//! the device at the end (after [`tenor_ports::Allocator::trim`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use thiserror::Error;

use tenor_ports::{Access, AllocError, Allocator, Block, CheckedDevice, ComputeError, Stream};

use crate::trace::{Trace, TraceOp};
use crate::{
    advisor, Arena, ArenaConfig, Binning, BinningConfig, Caching, CachingConfig, Pool, PoolConfig, Reuse, Slab,
    SlabConfig, Strategy,
};

/// The strategies a trace can be replayed against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// [`Pool`].
    Pool,
    /// [`Binning`] (bins from the advisor's exponents), larger requests to a [`Pool`].
    Binning,
    /// [`Arena`].
    Arena,
    /// [`Caching`].
    Caching,
    /// [`Slab`] with classes and per-job cap from the trace's profile.
    Slab,
}

impl Kind {
    /// Every kind, in report order.
    pub const ALL: [Kind; 5] = [Kind::Pool, Kind::Binning, Kind::Arena, Kind::Caching, Kind::Slab];
    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Pool => "pool",
            Self::Binning => "binning",
            Self::Arena => "arena",
            Self::Caching => "caching",
            Self::Slab => "slab",
        }
    }
}

/// Replay settings.
#[derive(Debug, Clone, Copy)]
pub struct ReplayOptions {
    /// Deterministic mode: every strategy reuses across streams only through event waits.
    pub deterministic: bool,
    /// Seed of the simulated device's interleaving.
    pub seed: u64,
    /// Simulated memory in bytes (0: four times the trace's peak, at least 256 MiB).
    pub memory_bytes: usize,
    /// Host synchronisation every this many events (0: never).
    pub sync_every: usize,
    /// Sample reserved, used and fragmentation every this many events.
    pub sample_every: usize,
    /// The slab's release threshold in bytes.
    pub slab_release_threshold: usize,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        Self {
            deterministic: true,
            seed: 1,
            memory_bytes: 0,
            sync_every: 16,
            sample_every: 16,
            slab_release_threshold: 2 << 20,
        }
    }
}

/// One sample of a replay's time series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// Event index.
    pub event: usize,
    /// Bytes reserved from the device.
    pub reserved: usize,
    /// Bytes requested by live allocations.
    pub used: usize,
}

/// What a replay measured.
#[derive(Debug, Clone)]
pub struct ReplayResult {
    /// The strategy.
    pub kind: Kind,
    /// The strategy's own name (with its parameters).
    pub name: String,
    /// Events replayed.
    pub events: usize,
    /// High watermark of bytes held from the device.
    pub peak_reserved: usize,
    /// High watermark of bytes requested by live allocations.
    pub peak_used: usize,
    /// Mean of the sampled fragmentation.
    pub fragmentation_mean: f64,
    /// Largest sampled fragmentation.
    pub fragmentation_max: f64,
    /// Stream waits the strategy inserted.
    pub inserted_waits: u64,
    /// Mean host time of an allocate or deallocate call, in nanoseconds.
    pub ns_per_op: f64,
    /// Allocations refused.
    pub failures: usize,
    /// Hazards the simulated device found.
    pub hazards: Vec<String>,
    /// Bytes still held from the device after everything was freed and trimmed.
    pub left_reserved: usize,
    /// Address of every successful allocation, in order.
    pub addresses: Vec<u64>,
    /// The inserted waits in order (see [`Strategy::wait_log`]).
    pub wait_log: Vec<(u64, u64)>,
    /// Reserved and used over time.
    pub series: Vec<Sample>,
}

impl ReplayResult {
    /// Peak reserved over peak used.
    pub fn overhead(&self) -> f64 {
        self.peak_reserved as f64 / self.peak_used.max(1) as f64
    }
}

/// Replay failures.
#[derive(Debug, Error)]
pub enum ReplayError {
    /// The checked device failed.
    #[error("checked device: {0}")]
    Device(#[from] ComputeError),
    /// An allocator call failed in a way the trace did not record.
    #[error("event {event}: {source}")]
    Alloc {
        /// Index of the event.
        event: usize,
        /// The allocator error.
        source: AllocError,
    },
}

/// Builds strategy `kind` over `upstream`, tuned from the trace's profile where it takes
/// parameters (bins, slab classes, per-job cap).
pub fn build(kind: Kind, upstream: Arc<dyn Allocator>, trace: &Trace, opts: &ReplayOptions) -> Arc<dyn Strategy> {
    let follow = |r: Reuse| if opts.deterministic { Reuse::FollowEvents } else { r };
    let pool_cfg = PoolConfig { reuse: follow(Reuse::FollowEvents), ..PoolConfig::default() };
    let p = advisor::Profile::from_trace(trace);
    match kind {
        Kind::Pool => Arc::new(Pool::new(upstream, pool_cfg)),
        Kind::Binning => {
            let (lo, hi) = p.bin_exponents();
            let pool: Arc<dyn Allocator> = Arc::new(Pool::new(upstream, pool_cfg));
            Arc::new(Binning::new(
                pool,
                BinningConfig { min_exp: lo, max_exp: hi, upstream_ordered: true, ..BinningConfig::default() },
            ))
        }
        Kind::Arena => Arc::new(Arena::new(upstream, ArenaConfig { pool: pool_cfg, ..ArenaConfig::default() })),
        Kind::Caching => Arc::new(Caching::new(
            upstream,
            CachingConfig { reuse: follow(Reuse::Opportunistic), ..CachingConfig::default() },
        )),
        Kind::Slab => Arc::new(Slab::new(
            upstream,
            SlabConfig {
                classes: p.slab_classes(),
                job_cap: p.job_cap(),
                release_threshold: opts.slab_release_threshold,
                reuse: follow(Reuse::FollowEvents),
                slab_bytes: 256 << 10,
                ..SlabConfig::default()
            },
        )),
    }
}

/// Opens a fresh hazard-checked device with an interleaving `seed` and `memory_bytes` of memory
/// (`tenor_registry::checked_device`, or a test's own).
pub type OpenDevice<'a> = &'a dyn Fn(u64, usize) -> Box<dyn CheckedDevice>;

/// Replays `trace` against `kind` on a device from `open`; `progress` is called with the number
/// of events done.
///
/// # Errors
/// [`ReplayError`] when the simulated device fails or a call fails other than by running out
/// of memory (out-of-memory refusals are counted in [`ReplayResult::failures`]).
pub fn replay(
    trace: &Trace,
    kind: Kind,
    opts: &ReplayOptions,
    open: OpenDevice<'_>,
    progress: &mut dyn FnMut(usize),
) -> Result<ReplayResult, ReplayError> {
    let peak = trace.peak_live_bytes();
    let memory_bytes = if opts.memory_bytes > 0 {
        opts.memory_bytes
    } else {
        peak.saturating_mul(4).clamp(256 << 20, 4 << 30).next_multiple_of(1 << 20)
    };
    let driver = open(opts.seed, memory_bytes);
    let device = driver.memory();
    let upstream: Arc<dyn Allocator> = device.clone();
    let strategy = build(kind, upstream, trace, opts);
    let streams: Vec<Stream> = trace.streams().iter().map(|_| driver.create_stream()).collect::<Result<_, _>>()?;
    let index: HashMap<u64, usize> = trace.streams().into_iter().enumerate().map(|(i, s)| (s, i)).collect();
    let mut live: HashMap<u64, (Block, usize, usize)> = HashMap::new();
    let mut res = ReplayResult {
        kind,
        name: strategy.name().to_owned(),
        events: trace.events.len(),
        peak_reserved: 0,
        peak_used: 0,
        fragmentation_mean: 0.0,
        fragmentation_max: 0.0,
        inserted_waits: 0,
        ns_per_op: 0.0,
        failures: 0,
        hazards: Vec::new(),
        left_reserved: 0,
        addresses: Vec::new(),
        wait_log: Vec::new(),
        series: Vec::new(),
    };
    let (mut used, mut calls, mut ns, mut frag_sum, mut frag_n) = (0usize, 0u64, 0u128, 0.0f64, 0usize);
    for (i, e) in trace.events.iter().enumerate() {
        let si = index.get(&e.stream).copied().unwrap_or(0);
        let s = &streams[si];
        match e.op {
            TraceOp::Alloc => {
                let t0 = Instant::now();
                let r = strategy.allocate(e.bytes, s);
                ns += t0.elapsed().as_nanos();
                calls += 1;
                match r {
                    Ok(b) => {
                        driver.touch(s, b.ptr, e.bytes.max(1), Access::Write)?;
                        res.addresses.push(b.ptr);
                        live.insert(e.block, (b, si, e.bytes));
                        used = used.saturating_add(e.bytes);
                        res.peak_used = res.peak_used.max(used);
                    }
                    Err(AllocError::OutOfMemory { .. } | AllocError::BudgetExceeded { .. }) => res.failures += 1,
                    Err(source) => return Err(ReplayError::Alloc { event: i, source }),
                }
            }
            TraceOp::Free => {
                let Some((b, owner, bytes)) = live.remove(&e.block) else { continue };
                if owner != si {
                    let ev = streams[owner].record()?;
                    s.wait(&ev)?;
                }
                driver.touch(s, b.ptr, bytes.max(1), Access::Read)?;
                let t0 = Instant::now();
                // SAFETY: `b` is a block this replay allocated (taken out of `live`, so freed
                // once); its uses on the owner's stream are ordered before `s` just above.
                let r = unsafe { strategy.deallocate(b, s) };
                ns += t0.elapsed().as_nanos();
                calls += 1;
                r.map_err(|source| ReplayError::Alloc { event: i, source })?;
                used = used.saturating_sub(bytes);
            }
            TraceOp::Fail => {}
        }
        let reserved = device.report().used;
        res.peak_reserved = res.peak_reserved.max(reserved);
        if opts.sample_every > 0 && i % opts.sample_every == 0 {
            let f = strategy.free_space().fragmentation();
            frag_sum += f;
            frag_n += 1;
            res.fragmentation_max = res.fragmentation_max.max(f);
            res.series.push(Sample { event: i, reserved, used });
        }
        if opts.sync_every > 0 && i % opts.sync_every == opts.sync_every - 1 {
            driver.synchronize()?;
        }
        if i % 256 == 0 {
            progress(i);
        }
    }
    for (_, (b, si, _)) in live.drain() {
        // SAFETY: a block this replay allocated and never freed, on the stream that owns it.
        unsafe { strategy.deallocate(b, &streams[si]) }
            .map_err(|source| ReplayError::Alloc { event: trace.events.len(), source })?;
    }
    strategy.trim(0).map_err(|source| ReplayError::Alloc { event: trace.events.len(), source })?;
    let _ = driver.synchronize();
    progress(trace.events.len());
    res.inserted_waits = strategy.inserted_waits();
    res.wait_log = strategy.wait_log();
    res.left_reserved = device.report().used;
    res.hazards = driver.hazards();
    res.ns_per_op = if calls == 0 { 0.0 } else { ns as f64 / calls as f64 };
    res.fragmentation_mean = if frag_n == 0 { 0.0 } else { frag_sum / frag_n as f64 };
    res.series.push(Sample { event: trace.events.len(), reserved: res.left_reserved, used });
    Ok(res)
}
