//! Stream queues, vector clocks, the hazard checker and the seeded scheduler.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tenor_kernels::cpu::{CpuKernelFn, KernelCall};
use tenor_ports::{Access, ComputeError, GemmDesc, Precision, RawArg, Transpose};

use crate::memory::Memory;
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
    clock: Vec<u64>,
}

struct EventState {
    clock: Vec<u64>,
    done: bool,
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
    host: Vec<u64>,
    history: Vec<AccessRec>,
    pub(crate) hazards: Vec<String>,
    unreported: Vec<ComputeError>,
    rng: u64,
}

fn at(c: &[u64], i: usize) -> u64 {
    c.get(i).copied().unwrap_or(0)
}

fn join(into: &mut Vec<u64>, other: &[u64]) {
    if into.len() < other.len() {
        into.resize(other.len(), 0);
    }
    for (a, b) in into.iter_mut().zip(other) {
        *a = (*a).max(*b);
    }
}

impl Sched {
    pub(crate) fn new(config: SimConfig) -> Self {
        Self {
            memory: Memory::new(config.memory_bytes),
            streams: Vec::new(),
            events: Vec::new(),
            host: Vec::new(),
            history: Vec::new(),
            hazards: Vec::new(),
            unreported: Vec::new(),
            rng: config.seed ^ 0x9E37_79B9_7F4A_7C15,
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
        let clock = self.host.clone();
        self.streams.push(StreamState { queue: VecDeque::new(), clock });
        self.streams.len() - 1
    }

    /// Advances stream `s`'s clock for a new operation and returns its tick.
    fn tick(&mut self, s: usize) -> u64 {
        let host = self.host.clone();
        let c = &mut self.streams[s].clock;
        join(c, &host);
        if c.len() <= s {
            c.resize(s + 1, 0);
        }
        c[s] += 1;
        c[s]
    }

    pub(crate) fn enqueue(&mut self, s: usize, op: Op, ranges: Vec<(u64, u64, Access)>, what: String) {
        let tick = self.tick(s);
        for (lo, len, acc) in ranges {
            let hi = lo + len;
            let clock = &self.streams[s].clock;
            for r in &self.history {
                let overlaps = r.lo < hi && lo < r.hi;
                if overlaps && r.stream != s && (r.write || acc.writes()) && at(clock, r.stream) < r.tick {
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
        self.streams[s].queue.push_back(op);
    }

    pub(crate) fn record(&mut self, s: usize) -> usize {
        self.tick(s);
        let id = self.events.len();
        self.events.push(EventState { clock: self.streams[s].clock.clone(), done: false });
        self.streams[s].queue.push_back(Op::Record { event: id });
        id
    }

    pub(crate) fn stream_wait(&mut self, s: usize, e: usize) {
        let ec = self.events[e].clock.clone();
        join(&mut self.streams[s].clock, &ec);
        self.streams[s].queue.push_back(Op::Wait { event: e });
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

    /// Runs work in a seeded interleaving until `done` holds.
    fn run_until(&mut self, done: impl Fn(&Self) -> bool) -> Result<(), ComputeError> {
        while !done(self) {
            let ready: Vec<usize> = (0..self.streams.len()).filter(|&s| self.runnable(s)).collect();
            if ready.is_empty() {
                return Err(ComputeError::Hazard(
                    "simulated device deadlock: every stream waits on an event that never completes".into(),
                ));
            }
            let s = ready[(self.next() % ready.len() as u64) as usize];
            let burst = 1 + self.next() % 3;
            for _ in 0..burst {
                if !self.runnable(s) {
                    break;
                }
                if let Some(op) = self.streams[s].queue.pop_front() {
                    self.execute(op);
                }
            }
        }
        Ok(())
    }

    fn execute(&mut self, op: Op) {
        match op {
            Op::Launch { f, items, block, args } => {
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
            Op::Record { event } => self.events[event].done = true,
            Op::Wait { .. } => {}
        }
    }

    fn gemm(&mut self, d: &GemmDesc, a: u64, b: u64, c: u64) {
        let (ab, bb, cb) = d.operand_bytes();
        let es = d.element_bytes();
        let read = |m: &Memory, p: u64, bytes: usize| -> Vec<f64> {
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
        let (av, bv, mut cv) = (read(&self.memory, a, ab), read(&self.memory, b, bb), read(&self.memory, c, cb));
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
        let host = self.host.clone();
        self.history.retain(|r| at(&host, r.stream) < r.tick);
        if self.unreported.is_empty() {
            Ok(())
        } else {
            let first = self.unreported.remove(0);
            self.unreported.clear();
            Err(first)
        }
    }

    pub(crate) fn host_wait_event(&mut self, e: usize) -> Result<(), ComputeError> {
        self.run_until(|g| g.events[e].done)?;
        let ec = self.events[e].clock.clone();
        join(&mut self.host, &ec);
        self.report()
    }

    pub(crate) fn host_wait_stream(&mut self, s: usize) -> Result<(), ComputeError> {
        self.run_until(|g| g.streams[s].queue.is_empty())?;
        let sc = self.streams[s].clock.clone();
        join(&mut self.host, &sc);
        self.report()
    }

    pub(crate) fn run_all(&mut self) -> Result<(), ComputeError> {
        self.run_until(|g| g.streams.iter().all(|s| s.queue.is_empty()))
    }

    pub(crate) fn host_wait_all(&mut self) -> Result<(), ComputeError> {
        self.run_all()?;
        for i in 0..self.streams.len() {
            let sc = self.streams[i].clock.clone();
            join(&mut self.host, &sc);
        }
        self.report()
    }
}
