//! Stream queues, the hazard checker (over the clocks of [`crate::clock`]) and the seeded
//! scheduler.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tenor_kernels::cpu::{CpuKernelFn, KernelCall};
use tenor_ports::{Access, ComputeError, GemmDesc, Precision, RawArg, Transpose};

use crate::clock::{Delta, HostClock};
use crate::memory::Memory;
use crate::ready::ReadySet;
use crate::SimConfig;

pub(crate) enum Op {
    Launch { f: CpuKernelFn, items: u64, block: u32, args: Vec<RawArg> },
    CopyIn { dst: u64, data: Vec<u8> },
    CopyOut { src: u64, len: usize, slot: Arc<Mutex<Option<Vec<u8>>>> },
    Free { ptr: u64, len: u64 },
    Touch,
    Gemm { desc: GemmDesc, a: u64, b: u64, c: u64 },
    Record { event: usize },
    Wait { event: usize },
}

struct StreamState {
    queue: VecDeque<Op>,
    /// Operations issued on the stream (its own entry of its clock).
    own: u64,
    /// What the stream learned from event waits beyond the host's clock.
    learned: Delta,
    /// Whether the stream issued or waited since the host last merged it (it is in
    /// `Sched::dirty`).
    dirty: bool,
}

struct EventState {
    /// The recording stream's clock above the host's at the record.
    clock: Delta,
    done: bool,
    /// Streams whose next operation waits for this event.
    waiters: Vec<usize>,
}

struct AccessRec {
    lo: u64,
    hi: u64,
    stream: usize,
    tick: u64,
    write: bool,
    what: String,
}

pub(crate) struct Sched {
    pub(crate) memory: Memory,
    streams: Vec<StreamState>,
    events: Vec<EventState>,
    host: HostClock,
    /// Streams whose clock changed since the host last merged it: a device-wide
    /// synchronisation merges these only (every other clock is already below the host's).
    dirty: Vec<usize>,
    /// Streams whose next operation can run (the scheduler picks among these only).
    ready: ReadySet,
    /// Streams with queued work.
    queued: usize,
    history: Vec<AccessRec>,
    pub(crate) hazards: Vec<String>,
    unreported: Vec<ComputeError>,
    rng: u64,
    /// Bookkeeping done so far: vector-clock entries merged or copied, and streams scanned by
    /// the scheduler (a count the tests bound, instead of a time).
    pub(crate) work: u64,
}

impl Sched {
    pub(crate) fn new(config: SimConfig) -> Self {
        Self {
            memory: Memory::new(config.memory_bytes),
            streams: Vec::new(),
            events: Vec::new(),
            host: HostClock::default(),
            dirty: Vec::new(),
            ready: ReadySet::default(),
            queued: 0,
            history: Vec::new(),
            hazards: Vec::new(),
            unreported: Vec::new(),
            rng: config.seed ^ 0x9E37_79B9_7F4A_7C15,
            work: 0,
        }
    }

    /// SplitMix64 (Steele, Lea and Flood 2014).
    fn next(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn add_stream(&mut self) -> usize {
        self.streams.push(StreamState { queue: VecDeque::new(), own: 0, learned: Delta::default(), dirty: false });
        self.streams.len() - 1
    }

    /// Marks stream `s`'s clock as changed since the host last merged it.
    fn touch_clock(&mut self, s: usize) {
        if !self.streams[s].dirty {
            self.streams[s].dirty = true;
            self.dirty.push(s);
        }
    }

    /// Queues `op` on stream `s`.
    fn push(&mut self, s: usize, op: Op) {
        let was_empty = self.streams[s].queue.is_empty();
        self.streams[s].queue.push_back(op);
        if was_empty {
            self.queued += 1;
            self.update_ready(s);
        }
    }

    /// Puts stream `s` in or out of the ready set after its next operation changed; a stream
    /// that waits for an event not yet done is noted with the event, which readies it.
    fn update_ready(&mut self, s: usize) {
        self.work += 1;
        let ready = match self.streams[s].queue.front() {
            None => false,
            Some(Op::Wait { event }) if !self.events[*event].done => {
                self.events[*event].waiters.push(s);
                false
            }
            Some(_) => true,
        };
        self.ready.set(s, ready);
    }

    /// Advances stream `s`'s own entry for a new operation and returns it.
    fn tick(&mut self, s: usize) -> u64 {
        self.streams[s].own += 1;
        self.touch_clock(s);
        self.streams[s].own
    }

    /// Entry `r` of stream `s`'s clock now: the host's, what `s` learned, or its own.
    fn clock_at(&self, s: usize, r: usize) -> u64 {
        let st = &self.streams[s];
        let own = if r == s { st.own } else { 0 };
        self.host.get(r).max(st.learned.get(r)).max(own)
    }

    pub(crate) fn enqueue(&mut self, s: usize, op: Op, ranges: Vec<(u64, u64, Access)>, what: String) {
        let tick = self.tick(s);
        for (lo, len, acc) in ranges {
            let hi = lo + len;
            self.work += self.history.len() as u64;
            for r in &self.history {
                let overlaps = r.lo < hi && lo < r.hi;
                if overlaps && r.stream != s && (r.write || acc.writes()) && self.clock_at(s, r.stream) < r.tick {
                    let msg = format!(
                        "{what} on stream {s} ({acc:?} of [{lo:#x}, {hi:#x})) is not ordered after {} on stream {} \
                         (missing event wait)",
                        r.what, r.stream
                    );
                    self.hazards.push(msg.clone());
                    self.unreported.push(ComputeError::Hazard(msg));
                }
            }
            self.history.push(AccessRec { lo, hi, stream: s, tick, write: acc.writes(), what: what.clone() });
        }
        self.push(s, op);
    }

    pub(crate) fn record(&mut self, s: usize) -> usize {
        let own = self.tick(s);
        let mut clock = self.streams[s].learned.clone();
        clock.raise(s, own);
        self.work += clock.len() as u64;
        let id = self.events.len();
        self.events.push(EventState { clock, done: false, waiters: Vec::new() });
        self.push(s, Op::Record { event: id });
        id
    }

    pub(crate) fn stream_wait(&mut self, s: usize, e: usize) {
        self.work += self.streams[s].learned.join(&self.events[e].clock);
        self.touch_clock(s);
        self.push(s, Op::Wait { event: e });
    }

    pub(crate) fn event_done(&self, e: usize) -> bool {
        self.events.get(e).is_some_and(|ev| ev.done)
    }

    fn runnable(&self, s: usize) -> bool {
        match self.streams[s].queue.front() {
            None => false,
            Some(Op::Wait { event }) => self.events[*event].done,
            Some(_) => true,
        }
    }

    /// Runs work in a seeded interleaving until `done` holds: a stream drawn among the ready
    /// ones (the k-th in index order, k from the generator) runs a burst of 1 to 3 operations.
    fn run_until(&mut self, done: impl Fn(&Self) -> bool) -> Result<(), ComputeError> {
        while !done(self) {
            let n = self.ready.len();
            if n == 0 {
                return Err(ComputeError::Hazard(
                    "simulated device deadlock: every stream waits on an event that never completes".into(),
                ));
            }
            let k = (self.next() % n as u64) as usize;
            let Some(s) = self.ready.kth(k) else { break };
            let burst = 1 + self.next() % 3;
            for _ in 0..burst {
                if !self.runnable(s) {
                    break;
                }
                if let Some(op) = self.streams[s].queue.pop_front() {
                    self.execute(op);
                }
            }
            if self.streams[s].queue.is_empty() {
                self.queued -= 1;
            }
            self.update_ready(s);
        }
        Ok(())
    }

    fn execute(&mut self, op: Op) {
        self.execute_op(op);
        if let Some(end) = self.memory.take_unbacked() {
            self.unreported.push(ComputeError::Alloc(tenor_ports::AllocError::Backend {
                backend: "sim".into(),
                code: 0,
                message: format!(
                    "the host cannot back the simulated memory up to {end} bytes (of {}) that this work reads or writes",
                    self.memory.capacity()
                ),
            }));
        }
    }

    fn execute_op(&mut self, op: Op) {
        match op {
            Op::Launch { f, items, block, args } => {
                // Backed as far as the furthest argument first: growing the backing moves it,
                // so no host address is taken before every range is backed.
                self.memory.back_ranges(args.iter().filter_map(|a| match a {
                    RawArg::Ptr(p, len) => Some((*p, *len)),
                    _ => None,
                }));
                let args: Vec<RawArg> = args
                    .into_iter()
                    .map(|a| match a {
                        RawArg::Ptr(p, len) => self.memory.host_range(p, len),
                        other => other,
                    })
                    .collect();
                // SAFETY: every range was translated into the live heap (range-checked above;
                // blocks are 256-byte aligned host addresses there); Driver::launch's contract
                // keeps written ranges apart from the other arguments, and the scheduler holds
                // the heap exclusively during the call.
                let call = unsafe { KernelCall::new(items, block, &args) };
                // SAFETY: one call over all blocks.
                unsafe { f(&call, 0..call.blocks()) };
            }
            Op::CopyIn { dst, data } => self.memory.write(dst, &data),
            Op::CopyOut { src, len, slot } => {
                let data = self.memory.read(src, len);
                *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(data);
            }
            Op::Free { ptr, len } => self.memory.poison(ptr, len),
            Op::Touch => {}
            Op::Gemm { desc, a, b, c } => self.gemm(&desc, a, b, c),
            Op::Record { event } => {
                self.events[event].done = true;
                for w in std::mem::take(&mut self.events[event].waiters) {
                    self.update_ready(w);
                }
            }
            Op::Wait { .. } => {}
        }
    }

    fn gemm(&mut self, d: &GemmDesc, a: u64, b: u64, c: u64) {
        let (ab, bb, cb) = d.operand_bytes();
        let es = d.element_bytes();
        let read = |m: &mut Memory, p: u64, bytes: usize| -> Vec<f64> {
            m.read(p, bytes)
                .chunks_exact(es)
                .map(|ch| {
                    if es == 8 {
                        f64::from_le_bytes(ch.try_into().unwrap_or([0; 8]))
                    } else {
                        f64::from(f32::from_le_bytes(ch.try_into().unwrap_or([0; 4])))
                    }
                })
                .collect()
        };
        let (av, bv, mut cv) =
            (read(&mut self.memory, a, ab), read(&mut self.memory, b, bb), read(&mut self.memory, c, cb));
        let ea = |i: usize, l: usize| if d.transa == Transpose::No { av[i + l * d.lda] } else { av[l + i * d.lda] };
        let eb = |l: usize, j: usize| if d.transb == Transpose::No { bv[l + j * d.ldb] } else { bv[j + l * d.ldb] };
        for j in 0..d.n {
            for i in 0..d.m {
                let dot: f64 = (0..d.k).map(|l| ea(i, l) * eb(l, j)).sum();
                let old = if d.beta == 0.0 { 0.0 } else { d.beta * cv[i + j * d.ldc] };
                cv[i + j * d.ldc] = d.alpha * dot + old;
            }
        }
        let bytes: Vec<u8> = match d.precision {
            Precision::F64 => cv.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Precision::F32 => cv.iter().flat_map(|x| (*x as f32).to_le_bytes()).collect(),
        };
        self.memory.write(c, &bytes);
    }

    fn report(&mut self) -> Result<(), ComputeError> {
        self.work += self.history.len() as u64;
        let host = &self.host;
        self.history.retain(|r| host.get(r.stream) < r.tick);
        if self.unreported.is_empty() {
            Ok(())
        } else {
            let first = self.unreported.remove(0);
            self.unreported.clear();
            Err(first)
        }
    }

    /// Merges stream `s`'s clock into the host's.
    fn host_join_stream(&mut self, s: usize) {
        let st = &self.streams[s];
        self.work += self.host.merge(&st.learned) + 1;
        let mut own = Delta::default();
        own.raise(s, st.own);
        self.host.merge(&own);
    }

    pub(crate) fn host_wait_event(&mut self, e: usize) -> Result<(), ComputeError> {
        self.run_until(|g| g.events[e].done)?;
        self.work += self.host.merge(&self.events[e].clock);
        self.report()
    }

    pub(crate) fn host_wait_stream(&mut self, s: usize) -> Result<(), ComputeError> {
        self.run_until(|g| g.streams[s].queue.is_empty())?;
        self.host_join_stream(s);
        self.report()
    }

    pub(crate) fn run_all(&mut self) -> Result<(), ComputeError> {
        self.run_until(|g| g.queued == 0)
    }

    /// Waits for every stream: the host merges the streams that issued or waited since it last
    /// merged them (the others are below it already) and clears what they learned (below the
    /// host's clock now), so a synchronisation costs the streams that worked since the last
    /// one, not every stream.
    pub(crate) fn host_wait_all(&mut self) -> Result<(), ComputeError> {
        self.run_all()?;
        for s in std::mem::take(&mut self.dirty) {
            self.host_join_stream(s);
            self.streams[s].learned.clear();
            self.streams[s].dirty = false;
        }
        self.report()
    }
}
