//! Timed replay of an allocation trace against any [`Allocator`] on real streams.
//!
//! The driver behind `tenor alloc replay --backend cuda|sim`: the trace's streams become the
//! caller's streams (one per trace stream, in first-use order, [`OrderPlan`]), the events are
//! issued in trace order, every free is stream-ordered on the stream the trace frees on, and a
//! free on a stream other than the allocating one is first ordered after the allocating stream
//! with an event (record on the owner, wait on the freeing stream), as the port contract and
//! the CUDA stream-ordered allocator's hazard rules require. The allocator is just an
//! `Arc<dyn Allocator>`: the CUDA run passes the driver pool, `cuMemAlloc` or a toolkit strategy
//! over Tenor's pool; the tests pass the simulated device.
//!
//! Measured ([`DeviceReplayReport`]): wall time, host latency of every allocate and deallocate
//! call (percentiles p50/p99/p99.9 by nearest rank, [`Percentiles`]), peak reserved (bytes the
//! target's device-side allocator held, its [`Allocator::report`]) against peak used (requested
//! bytes of live allocations), fragmentation `reserved / used` sampled at every job boundary
//! ([`FragSample`]), the ordering waits this driver inserted and the waits the strategy inserted.
//!
//! Soak ([`SoakOptions`]): the trace is looped until the time is spent, jobs back to back with
//! a random idle gap (host sleep, from a fixed seed) at each job boundary; blocks the trace
//! leaves live are freed at the end of each pass so passes do not leak.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tenor_ports::{AllocError, Allocator, Block, ComputeError, Stream};

use crate::replay::ReplayError;
use crate::trace::{Trace, TraceOp};
use crate::Strategy;

/// Nearest-rank percentiles of a set of latencies, in nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Percentiles {
    /// Calls measured.
    pub count: usize,
    /// Median.
    pub p50: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// Largest.
    pub max: u64,
    /// Mean.
    pub mean: f64,
}

impl Percentiles {
    /// From the samples (sorted in place). Nearest rank: the `q` quantile of `n` sorted samples
    /// is the sample of rank `ceil(q n)` (1-based). Empty input gives all zeros.
    pub fn from_samples(samples: &mut [u64]) -> Self {
        if samples.is_empty() {
            return Self::default();
        }
        samples.sort_unstable();
        let n = samples.len();
        let rank = |q: f64| samples[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
        Self {
            count: n,
            p50: rank(0.5),
            p99: rank(0.99),
            p999: rank(0.999),
            max: samples[n - 1],
            mean: samples.iter().map(|&x| x as f64).sum::<f64>() / n as f64,
        }
    }
}

/// How the trace's streams map to the replay's streams, and which frees need an ordering wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderPlan {
    /// Replay stream (index into the caller's streams) of every event.
    pub lane: Vec<usize>,
    /// For a free on a stream other than its allocation's: the allocating stream to wait on.
    pub wait_on: Vec<Option<usize>>,
    /// Number of replay streams needed (the trace's distinct streams, at least 1).
    pub lanes: usize,
}

impl OrderPlan {
    /// The plan of `trace`: streams numbered in [`Trace::streams`] order; a free whose block
    /// was allocated on another stream waits on that stream.
    pub fn of(trace: &Trace) -> Self {
        let streams = trace.streams();
        let index: HashMap<u64, usize> = streams.iter().enumerate().map(|(i, s)| (*s, i)).collect();
        let mut owner: HashMap<u64, usize> = HashMap::new();
        let mut lane = Vec::with_capacity(trace.events.len());
        let mut wait_on = Vec::with_capacity(trace.events.len());
        for e in &trace.events {
            let l = index.get(&e.stream).copied().unwrap_or(0);
            lane.push(l);
            let w = match e.op {
                TraceOp::Alloc => {
                    owner.insert(e.block, l);
                    None
                }
                TraceOp::Free => owner.remove(&e.block).filter(|&o| o != l),
                TraceOp::Fail => None,
            };
            wait_on.push(w);
        }
        Self { lane, wait_on, lanes: streams.len().max(1) }
    }
}

/// One fragmentation sample, taken at a job boundary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FragSample {
    /// Seconds since the replay started.
    pub time_s: f64,
    /// Pass over the trace (0 without soak).
    pub pass: usize,
    /// Event index within the pass.
    pub event: usize,
    /// Bytes the device-side allocator held.
    pub reserved: usize,
    /// Requested bytes of live allocations.
    pub used: usize,
}

impl FragSample {
    /// `reserved / used` (1 is none; `reserved` itself when nothing is used, counted per byte).
    pub fn ratio(&self) -> f64 {
        self.reserved as f64 / self.used.max(1) as f64
    }
}

/// A soak: loop the trace for `duration`, with idle gaps at job boundaries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SoakOptions {
    /// How long to keep looping (a pass in progress is finished).
    pub duration: Duration,
    /// Seed of the idle gaps.
    pub seed: u64,
    /// Largest idle gap; each gap is uniform in `[0, max_gap]`.
    pub max_gap: Duration,
}

/// What the replay is run against.
#[derive(Clone)]
pub struct Target {
    /// Name in the report (with its parameters).
    pub name: String,
    /// The allocator the events call.
    pub allocator: Arc<dyn Allocator>,
    /// The same allocator as a toolkit strategy, for its inserted waits (None otherwise).
    pub strategy: Option<Arc<dyn Strategy>>,
    /// The allocator whose `report().reserved` is the device memory held (the pool under a
    /// strategy; the allocator itself otherwise).
    pub device: Arc<dyn Allocator>,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target").field("name", &self.name).finish_non_exhaustive()
    }
}

/// What one timed replay measured.
#[derive(Debug, Clone)]
pub struct DeviceReplayReport {
    /// The target's name.
    pub name: String,
    /// Passes over the trace (1 without soak).
    pub passes: usize,
    /// Events issued.
    pub events: usize,
    /// Wall time, seconds, idle gaps excluded, final synchronisation included.
    pub wall_s: f64,
    /// Idle gaps slept, seconds.
    pub idle_s: f64,
    /// Host latency of allocate calls.
    pub alloc_ns: Percentiles,
    /// Host latency of deallocate calls.
    pub free_ns: Percentiles,
    /// High watermark of the device-side reserved bytes.
    pub peak_reserved: usize,
    /// High watermark of requested bytes of live allocations.
    pub peak_used: usize,
    /// Fragmentation samples at job boundaries.
    pub samples: Vec<FragSample>,
    /// Waits this driver inserted to order cross-stream frees.
    pub ordering_waits: u64,
    /// Waits the strategy inserted (0 for plain allocators).
    pub inserted_waits: u64,
    /// Allocations refused for lack of memory or budget.
    pub failures: usize,
}

impl DeviceReplayReport {
    /// Peak reserved over peak used.
    pub fn overhead(&self) -> f64 {
        self.peak_reserved as f64 / self.peak_used.max(1) as f64
    }

    /// Largest sampled `reserved / used` among samples with something used.
    pub fn fragmentation_max(&self) -> f64 {
        self.samples.iter().filter(|s| s.used > 0).map(FragSample::ratio).fold(0.0, f64::max)
    }
}

/// Progress of a replay.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// Events issued so far.
    pub events: usize,
    /// Passes finished.
    pub passes: usize,
    /// Time since the start.
    pub elapsed: Duration,
}

/// A small xorshift generator for the idle gaps (reproducible from the seed).
fn next(state: &mut u64) -> u64 {
    let mut x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    x
}

/// Where a replay reads the time and spends its soak's idle gaps: [`WallClock`] for real runs;
/// tests give a clock that moves only as they say, so that what a run does for a given time
/// never depends on how fast the machine is that day.
pub trait Clock {
    /// Time since the clock's start.
    fn now(&mut self) -> Duration;
    /// Waits for `gap` (an idle gap of a soak).
    fn sleep(&mut self, gap: Duration);
}

/// The wall clock: [`Instant`] and [`std::thread::sleep`].
#[derive(Debug, Clone, Copy)]
pub struct WallClock {
    start: Instant,
}

impl WallClock {
    /// A clock starting now.
    #[must_use]
    pub fn new() -> Self {
        Self { start: Instant::now() }
    }
}

impl Default for WallClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for WallClock {
    fn now(&mut self) -> Duration {
        self.start.elapsed()
    }
    fn sleep(&mut self, gap: Duration) {
        std::thread::sleep(gap);
    }
}

/// Replays `trace` against `target` on `streams` (at least [`OrderPlan::lanes`] of them; the
/// caller creates them on the target's device), once or as a soak, on the wall clock
/// ([`replay_on_clock`]).
///
/// # Errors
/// [`ReplayError::Device`] when `streams` are too few or a stream operation fails;
/// [`ReplayError::Alloc`] when a call fails other than by running out of memory (those are
/// counted in [`DeviceReplayReport::failures`]).
pub fn replay_on(
    trace: &Trace,
    target: &Target,
    streams: &[Stream],
    soak: Option<SoakOptions>,
    progress: &mut dyn FnMut(Progress),
) -> Result<DeviceReplayReport, ReplayError> {
    replay_on_clock(trace, target, streams, soak, progress, &mut WallClock::new())
}

/// [`replay_on`] with the time (latencies, samples, the soak's end and its idle gaps) read from
/// and spent on `clock`.
///
/// # Errors
/// As [`replay_on`].
pub fn replay_on_clock(
    trace: &Trace,
    target: &Target,
    streams: &[Stream],
    soak: Option<SoakOptions>,
    progress: &mut dyn FnMut(Progress),
    clock: &mut dyn Clock,
) -> Result<DeviceReplayReport, ReplayError> {
    let plan = OrderPlan::of(trace);
    if streams.len() < plan.lanes {
        return Err(ReplayError::Device(ComputeError::InvalidArgument(format!(
            "replay needs {} streams (one per trace stream), got {}",
            plan.lanes,
            streams.len()
        ))));
    }
    let a = &target.allocator;
    let mut rng = soak.map_or(1, |s| s.seed | 1);
    let mut alloc_ns = Vec::with_capacity(trace.events.len());
    let mut free_ns = Vec::with_capacity(trace.events.len());
    let mut live: HashMap<u64, (Block, usize, usize)> = HashMap::new();
    let mut rep = DeviceReplayReport {
        name: target.name.clone(),
        passes: 0,
        events: 0,
        wall_s: 0.0,
        idle_s: 0.0,
        alloc_ns: Percentiles::default(),
        free_ns: Percentiles::default(),
        peak_reserved: 0,
        peak_used: 0,
        samples: Vec::new(),
        ordering_waits: 0,
        inserted_waits: 0,
        failures: 0,
    };
    let mut idle = Duration::ZERO;
    let mut used = 0usize;
    let fail = |event: usize| move |source: AllocError| ReplayError::Alloc { event, source };
    loop {
        let pass = rep.passes;
        let mut prev_job = None;
        for (i, e) in trace.events.iter().enumerate() {
            if prev_job.is_some_and(|j| j != e.job) {
                let reserved = target.device.report().reserved;
                rep.samples.push(FragSample { time_s: clock.now().as_secs_f64(), pass, event: i, reserved, used });
                if let Some(s) = soak.filter(|s| !s.max_gap.is_zero()) {
                    let gap = Duration::from_nanos(next(&mut rng) % (s.max_gap.as_nanos() as u64 + 1));
                    clock.sleep(gap);
                    idle += gap;
                }
            }
            prev_job = Some(e.job);
            let s = &streams[plan.lane[i]];
            match e.op {
                TraceOp::Alloc => {
                    let t0 = clock.now();
                    let r = a.allocate(e.bytes, s);
                    alloc_ns.push(clock.now().saturating_sub(t0).as_nanos() as u64);
                    match r {
                        Ok(b) => {
                            live.insert(e.block, (b, plan.lane[i], e.bytes));
                            used = used.saturating_add(e.bytes);
                            rep.peak_used = rep.peak_used.max(used);
                        }
                        Err(AllocError::OutOfMemory { .. } | AllocError::BudgetExceeded { .. }) => rep.failures += 1,
                        Err(source) => return Err(fail(i)(source)),
                    }
                }
                TraceOp::Free => {
                    let Some((b, _, bytes)) = live.remove(&e.block) else { continue };
                    if let Some(owner) = plan.wait_on[i] {
                        let ev = streams[owner].record()?;
                        s.wait(&ev)?;
                        rep.ordering_waits += 1;
                    }
                    let t0 = clock.now();
                    // SAFETY: `b` is a block this replay allocated (taken out of `live`, so freed
                    // once); the owner's stream is ordered before `s` just above when it differs.
                    let r = unsafe { a.deallocate(b, s) };
                    free_ns.push(clock.now().saturating_sub(t0).as_nanos() as u64);
                    r.map_err(fail(i))?;
                    used = used.saturating_sub(bytes);
                }
                TraceOp::Fail => {}
            }
            rep.events += 1;
            rep.peak_reserved = rep.peak_reserved.max(target.device.report().reserved);
            if i % 256 == 0 {
                progress(Progress { events: rep.events, passes: rep.passes, elapsed: clock.now() });
            }
        }
        // blocks the trace leaves live: freed on their own stream so the next pass starts clean
        for (_, (b, lane, _)) in live.drain() {
            let t0 = clock.now();
            // SAFETY: a block this replay allocated and never freed, on its own stream.
            let r = unsafe { a.deallocate(b, &streams[lane]) };
            free_ns.push(clock.now().saturating_sub(t0).as_nanos() as u64);
            r.map_err(fail(trace.events.len()))?;
        }
        used = 0;
        let reserved = target.device.report().reserved;
        rep.samples.push(FragSample {
            time_s: clock.now().as_secs_f64(),
            pass,
            event: trace.events.len(),
            reserved,
            used,
        });
        rep.passes += 1;
        progress(Progress { events: rep.events, passes: rep.passes, elapsed: clock.now() });
        match soak {
            Some(s) if clock.now() < s.duration && !trace.events.is_empty() => {}
            _ => break,
        }
    }
    for s in streams {
        s.synchronize()?;
    }
    rep.wall_s = clock.now().saturating_sub(idle).as_secs_f64();
    rep.idle_s = idle.as_secs_f64();
    rep.peak_reserved = rep.peak_reserved.max(target.device.report().peak_reserved);
    rep.alloc_ns = Percentiles::from_samples(&mut alloc_ns);
    rep.free_ns = Percentiles::from_samples(&mut free_ns);
    rep.inserted_waits = target.strategy.as_ref().map_or(0, |s| s.inserted_waits());
    Ok(rep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tenor_ports::Driver;
    use tenor_sim::{SimConfig, SimDriver};

    /// A hand-written trace: `(op, bytes, stream, job, block)`.
    fn trace(rows: &[(&str, usize, u64, u64, u64)]) -> Trace {
        let mut text = format!("{}\ntime_ns,op,bytes,stream,job,block,thread\n", crate::trace::TRACE_HEADER);
        for (t, (op, bytes, stream, job, block)) in rows.iter().enumerate() {
            text.push_str(&format!("{t},{op},{bytes},{stream},{job},{block},0\n"));
        }
        Trace::parse(&text, "test").expect("hand-written trace parses")
    }

    /// Two jobs on streams 7 and 9; block 2 allocated on 9 and freed on 7 (one ordering wait);
    /// block 3 left live at the end. Used peaks at 1000 + 3000 + 500 = 4500 bytes.
    fn two_jobs() -> Trace {
        trace(&[
            ("alloc", 1000, 7, 1, 1),
            ("alloc", 3000, 9, 1, 2),
            ("free", 1000, 7, 1, 1),
            ("alloc", 500, 7, 2, 3),
            ("alloc", 1000, 7, 2, 4),
            ("free", 3000, 7, 2, 2),
            ("free", 1000, 7, 2, 4),
        ])
    }

    fn sim_target(driver: &SimDriver) -> Target {
        let dev: Arc<dyn Allocator> = driver.sim_allocator();
        Target { name: "sim".into(), allocator: dev.clone(), strategy: None, device: dev }
    }

    #[test]
    fn nearest_rank_percentiles_of_one_to_a_thousand() {
        let mut v: Vec<u64> = (1..=1000).rev().collect();
        let p = Percentiles::from_samples(&mut v);
        // ceil(0.5 * 1000) = 500th, ceil(0.99 * 1000) = 990th, ceil(0.999 * 1000) = 999th
        assert_eq!((p.count, p.p50, p.p99, p.p999, p.max), (1000, 500, 990, 999, 1000));
        assert!((p.mean - 500.5).abs() < 1e-12);
        let mut three = vec![10, 30, 20];
        let q = Percentiles::from_samples(&mut three);
        assert_eq!((q.p50, q.p99, q.p999), (20, 30, 30));
        assert_eq!(Percentiles::from_samples(&mut []), Percentiles::default());
    }

    #[test]
    fn the_plan_numbers_streams_in_first_use_order_and_waits_only_for_cross_stream_frees() {
        let p = OrderPlan::of(&two_jobs());
        assert_eq!(p.lanes, 2);
        assert_eq!(p.lane, vec![0, 1, 0, 0, 0, 0, 0]);
        assert_eq!(p.wait_on, vec![None, None, None, None, None, Some(1), None]);
    }

    #[test]
    fn one_pass_on_the_sim_device_accounts_peaks_samples_and_waits() {
        let driver = SimDriver::new(SimConfig { seed: 3, memory_bytes: 1 << 20 });
        let streams: Vec<Stream> = (0..2).map(|_| driver.create_stream().expect("stream")).collect();
        let r = replay_on(&two_jobs(), &sim_target(&driver), &streams, None, &mut |_| {}).expect("replay");
        assert_eq!((r.passes, r.events, r.failures), (1, 7, 0));
        assert_eq!(r.peak_used, 4500);
        assert_eq!(r.alloc_ns.count, 4);
        // three frees in the trace and block 3, left live, freed at the end of the pass
        assert_eq!(r.free_ns.count, 4);
        assert_eq!(r.ordering_waits, 1);
        assert_eq!(r.inserted_waits, 0);
        // the job boundary (before event 3: 3000 bytes live) and the end of the pass
        assert_eq!(r.samples.len(), 2);
        assert_eq!((r.samples[0].event, r.samples[0].used), (3, 3000));
        assert_eq!((r.samples[1].event, r.samples[1].used), (7, 0));
        // the simulated device reserves what it hands out (256-byte granularity at least)
        assert!(r.peak_reserved >= r.peak_used, "{} < {}", r.peak_reserved, r.peak_used);
        assert!(r.samples[0].ratio() >= 1.0);
        assert_eq!(driver.sim_allocator().report().used, 0, "everything went back");
    }

    #[test]
    fn too_few_streams_is_a_typed_error() {
        let driver = SimDriver::new(SimConfig { seed: 3, memory_bytes: 1 << 20 });
        let one = vec![driver.create_stream().expect("stream")];
        let e = replay_on(&two_jobs(), &sim_target(&driver), &one, None, &mut |_| {}).expect_err("two streams needed");
        assert!(e.to_string().contains("needs 2 streams"), "{e}");
    }

    /// A clock that moves 1 us per reading and by exactly the gaps slept: what a soak does for a
    /// given time is then the same on every machine under any load (issue 29: this test
    /// wanted 2 passes in 30 ms of wall time).
    struct Ticks {
        now: Duration,
        slept: Vec<Duration>,
    }

    impl Clock for Ticks {
        fn now(&mut self) -> Duration {
            self.now += Duration::from_micros(1);
            self.now
        }
        fn sleep(&mut self, gap: Duration) {
            self.now += gap;
            self.slept.push(gap);
        }
    }

    #[test]
    fn a_soak_loops_the_trace_with_seeded_gaps_until_the_time_is_spent() {
        let driver = SimDriver::new(SimConfig { seed: 3, memory_bytes: 1 << 20 });
        let streams: Vec<Stream> = (0..2).map(|_| driver.create_stream().expect("stream")).collect();
        let soak = SoakOptions { duration: Duration::from_millis(30), seed: 11, max_gap: Duration::from_millis(2) };
        let mut last = None;
        let mut clock = Ticks { now: Duration::ZERO, slept: Vec::new() };
        let r = replay_on_clock(
            &two_jobs(),
            &sim_target(&driver),
            &streams,
            Some(soak),
            &mut |p| last = Some(p.passes),
            &mut clock,
        )
        .expect("soak");
        // One gap at the trace's one job boundary per pass; the soak stops at the first pass that
        // ends with the clock at or past 30 ms, and not before.
        let gaps: Duration = clock.slept.iter().sum();
        assert_eq!(clock.slept.len(), r.passes, "{:?}", clock.slept);
        assert!(clock.slept.iter().all(|g| *g <= soak.max_gap), "{:?}", clock.slept);
        assert!((r.idle_s - gaps.as_secs_f64()).abs() < 1e-12 && r.idle_s > 0.0, "{} vs {gaps:?}", r.idle_s);
        assert!(clock.now >= soak.duration && r.passes >= 2, "passes {} at {:?}", r.passes, clock.now);
        let before_last: Duration = clock.slept[..r.passes - 1].iter().sum();
        assert!(before_last < soak.duration, "a pass too many: {:?}", clock.slept);
        assert_eq!(last, Some(r.passes));
        assert_eq!(r.events, 7 * r.passes);
        assert_eq!(r.ordering_waits, r.passes as u64);
        assert_eq!(r.samples.len(), 2 * r.passes);
        assert!(r.samples.windows(2).all(|w| w[0].time_s <= w[1].time_s));
        assert_eq!(driver.sim_allocator().report().used, 0);
        // The same seed gives the same gaps.
        let mut again = Ticks { now: Duration::ZERO, slept: Vec::new() };
        replay_on_clock(&two_jobs(), &sim_target(&driver), &streams, Some(soak), &mut |_| {}, &mut again)
            .expect("soak");
        assert_eq!(again.slept, clock.slept);
    }
}
