//! Per-thread fronts of a size-class cache: the last block freed per class and stream, and the
//! thread's share of the used-bytes counters, touched without a lock or an atomic
//! read-modify-write (tcmalloc's per-thread caches, mimalloc's thread-local free lists, scaled
//! down to one block per class).
//!
//! A thread keeps one [`Front`] per cache it calls, with lanes for up to 8 streams (a ninth
//! stream takes a lane over, round robin, after the lane's parked blocks went to the shared
//! lanes). A free on stream `s` parks the block in the
//! front's slot for (`s`, class) when that slot is empty; the next allocation of that class on
//! `s` by the same thread takes it back. Both stay on one stream, so stream order holds with no
//! event. A parked block is invisible to other streams until the thread *flushes* it into the
//! shared lane of its stream (with a fresh epoch, so cross-stream reuse still waits on an event
//! recorded after the flush): on any of the thread's own misses of that class, and on
//! [`crate::Strategy`]-level release (`trim`, drop).
//!
//! Only the owning thread writes a front, and only inside calls into its cache; the fields are
//! atomics read and written with plain loads and stores. Other threads read the counters (for
//! reports) and take parked blocks only when no call can be in flight: when the owning thread
//! has exited ([`Front::is_orphaned`]) or when the cache is dropped.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tenor_ports::Stream;

use crate::order::lock;

/// Streams per thread and cache with a front lane.
const LANES: usize = 8;
/// A lane not bound to a stream.
const NO_STREAM: u64 = u64::MAX;

/// What [`Local::park`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Park {
    /// The block is parked.
    Parked,
    /// The block is parked in place of this record's block, which the caller must return to
    /// the shared lane.
    Evicted(u32),
    /// Over the limit with this many bytes parked on the stream: the caller returns the block.
    Refused(usize),
    /// The thread has no lane for the stream.
    NoLane,
}

/// One stream's parked blocks: record index + 1 per class (0: empty).
#[derive(Debug)]
struct FrontLane {
    parked: Box<[AtomicU64]>,
    /// Bytes parked here.
    bytes: AtomicUsize,
}

/// The parts of one thread's front of one cache that other threads may read: parked blocks, the
/// lanes' streams and the counters (aligned so that two threads' fronts share no cache line).
#[derive(Debug)]
#[repr(align(128))]
pub(crate) struct Front {
    lanes: Box<[FrontLane]>,
    /// Class sizes in bytes.
    sizes: Box<[usize]>,
    /// The stream of each bound lane, in lane order.
    streams: Mutex<Vec<Stream>>,
    /// Bytes handed out minus bytes taken back by this thread (may be negative).
    used: AtomicI64,
    /// High watermark of `used` (at least 0).
    peak: AtomicI64,
    /// Blocks handed out minus blocks taken back by this thread.
    live: AtomicI64,
    orphaned: AtomicBool,
    dead: AtomicBool,
}

/// Adds `d` to a counter only its owner writes (a plain load and store).
fn bump(a: &AtomicI64, d: i64) -> i64 {
    let v = a.load(Ordering::Relaxed) + d;
    a.store(v, Ordering::Relaxed);
    v
}

impl Front {
    fn new(sizes: &[usize]) -> Self {
        let lanes = (0..LANES)
            .map(|_| FrontLane {
                parked: sizes.iter().map(|_| AtomicU64::new(0)).collect(),
                bytes: AtomicUsize::new(0),
            })
            .collect();
        Self {
            lanes,
            sizes: sizes.into(),
            streams: Mutex::new(Vec::new()),
            used: AtomicI64::new(0),
            peak: AtomicI64::new(0),
            live: AtomicI64::new(0),
            orphaned: AtomicBool::new(false),
            dead: AtomicBool::new(false),
        }
    }

    /// Empties lane `k`, returning its parked blocks as (class, record index).
    fn empty_lane(&self, k: usize) -> Vec<(usize, u32)> {
        let mut v = Vec::new();
        if let Some(l) = self.lanes.get(k) {
            for (c, slot) in l.parked.iter().enumerate() {
                let x = slot.load(Ordering::Relaxed);
                if x != 0 {
                    slot.store(0, Ordering::Relaxed);
                    v.push((c, (x - 1) as u32));
                }
            }
            l.bytes.store(0, Ordering::Relaxed);
        }
        v
    }

    /// Takes the parked blocks of `class` (every class when `None`), as (stream, class,
    /// record index), in lane and class order. Owner only, or on an orphaned front, or while the
    /// cache is dropped.
    pub(crate) fn take(&self, class: Option<usize>) -> Vec<(Stream, usize, u32)> {
        let streams = lock(&self.streams);
        let mut v = Vec::new();
        for (l, s) in self.lanes.iter().zip(streams.iter()) {
            for (c, slot) in l.parked.iter().enumerate() {
                if class.is_some_and(|k| k != c) {
                    continue;
                }
                let x = slot.load(Ordering::Relaxed);
                if x != 0 {
                    slot.store(0, Ordering::Relaxed);
                    l.bytes.store(l.bytes.load(Ordering::Relaxed) - self.sizes[c], Ordering::Relaxed);
                    v.push((s.clone(), c, (x - 1) as u32));
                }
            }
        }
        v
    }

    /// Parked blocks as (class, record index) (a snapshot; exact when no call is in flight).
    pub(crate) fn parked(&self) -> Vec<(usize, u32)> {
        let mut v = Vec::new();
        for l in self.lanes.iter() {
            for (c, slot) in l.parked.iter().enumerate() {
                let x = slot.load(Ordering::Relaxed);
                if x != 0 {
                    v.push((c, (x - 1) as u32));
                }
            }
        }
        v
    }

    /// (used bytes, high watermark, live blocks) of this thread.
    pub(crate) fn counters(&self) -> (i64, i64, i64) {
        (self.used.load(Ordering::Relaxed), self.peak.load(Ordering::Relaxed), self.live.load(Ordering::Relaxed))
    }

    /// Resets the high watermark to the current used bytes.
    pub(crate) fn reset_peak(&self) {
        self.peak.store(self.used.load(Ordering::Relaxed).max(0), Ordering::Relaxed);
    }

    /// Whether the owning thread has exited (its parked blocks may be taken).
    pub(crate) fn is_orphaned(&self) -> bool {
        self.orphaned.load(Ordering::Acquire)
    }

    /// Marks the front's cache dropped (the thread forgets it).
    pub(crate) fn kill(&self) {
        self.dead.store(true, Ordering::Release);
    }
}

/// The owning thread's view of its front: which stream each lane serves and the free bytes of
/// that stream's shared lane (thread-local, so no other thread reads them).
#[derive(Debug)]
pub(crate) struct Local {
    cache: u64,
    front: Arc<Front>,
    streams: [u64; LANES],
    shared: [Option<Arc<AtomicUsize>>; LANES],
    /// Next lane to take over when all are bound.
    victim: usize,
}

impl Local {
    fn lane(&self, stream: u64) -> Option<usize> {
        self.streams.iter().position(|&s| s == stream)
    }

    /// Binds a lane to `stream` if none is (taking one over when all are bound), `shared`
    /// giving the free bytes of the stream's shared lane. Returns the parked blocks of a lane
    /// taken over, as (stream, class, record index).
    fn open_lane(&mut self, stream: &Stream, shared: impl FnOnce() -> Arc<AtomicUsize>) -> Vec<(Stream, usize, u32)> {
        if self.lane(stream.id()).is_some() {
            return Vec::new();
        }
        let mut streams = lock(&self.front.streams);
        if let Some(k) = self.streams.iter().position(|&s| s == NO_STREAM) {
            streams.push(stream.clone());
            self.streams[k] = stream.id();
            self.shared[k] = Some(shared());
            return Vec::new();
        }
        let k = self.victim % LANES;
        self.victim += 1;
        let old = std::mem::replace(&mut streams[k], stream.clone());
        let evicted = self.front.empty_lane(k).into_iter().map(|(c, r)| (old.clone(), c, r)).collect();
        self.streams[k] = stream.id();
        self.shared[k] = Some(shared());
        evicted
    }

    /// Takes the block parked for (`stream`, `class`).
    pub(crate) fn pop(&self, stream: u64, class: usize) -> Option<u32> {
        let lane = &self.front.lanes[self.lane(stream)?];
        let slot = lane.parked.get(class)?;
        let v = slot.load(Ordering::Relaxed);
        if v == 0 {
            return None;
        }
        slot.store(0, Ordering::Relaxed);
        lane.bytes.store(lane.bytes.load(Ordering::Relaxed) - self.front.sizes[class], Ordering::Relaxed);
        Some((v - 1) as u32)
    }

    /// Parks block record `index` for (`stream`, `class`), sending back the block parked
    /// there before; with a `limit`, only while the stream's free bytes (shared lane and parked
    /// here) stay within it.
    pub(crate) fn park(&self, stream: u64, class: usize, index: u32, limit: Option<usize>) -> Park {
        let Some(k) = self.lane(stream) else {
            return Park::NoLane;
        };
        let lane = &self.front.lanes[k];
        let Some(slot) = lane.parked.get(class) else {
            return Park::NoLane;
        };
        let parked = lane.bytes.load(Ordering::Relaxed);
        if let Some(limit) = limit {
            let shared = self.shared[k].as_ref().map_or(0, |s| s.load(Ordering::Relaxed));
            if shared.saturating_add(parked).saturating_add(self.front.sizes[class]) > limit {
                return Park::Refused(parked);
            }
        }
        let old = slot.load(Ordering::Relaxed);
        slot.store(u64::from(index) + 1, Ordering::Relaxed);
        if old == 0 {
            lane.bytes.store(parked + self.front.sizes[class], Ordering::Relaxed);
            Park::Parked
        } else {
            Park::Evicted((old - 1) as u32)
        }
    }

    /// Adds `bytes` and `blocks` to the thread's handed-out counters.
    pub(crate) fn account(&self, bytes: i64, blocks: i64) {
        let f = &self.front;
        let u = bump(&f.used, bytes);
        bump(&f.live, blocks);
        if u > f.peak.load(Ordering::Relaxed) {
            f.peak.store(u, Ordering::Relaxed);
        }
    }

    /// Takes the parked blocks of `class` (every class when `None`); see [`Front::take`].
    pub(crate) fn take(&self, class: Option<usize>) -> Vec<(Stream, usize, u32)> {
        self.front.take(class)
    }
}

/// The calling thread's fronts.
struct Fronts(Vec<Local>);

impl Drop for Fronts {
    fn drop(&mut self) {
        for l in &self.0 {
            l.front.orphaned.store(true, Ordering::Release);
        }
    }
}

thread_local! {
    static FRONTS: RefCell<Fronts> = const { RefCell::new(Fronts(Vec::new())) };
}

/// Runs `f` on the calling thread's front of cache `cache`, if it has one (and its thread-locals
/// are alive).
pub(crate) fn with<R>(cache: u64, f: impl FnOnce(&Local) -> R) -> Option<R> {
    FRONTS
        .try_with(|v| {
            let v = v.try_borrow().ok()?;
            let local = v.0.iter().find(|l| l.cache == cache)?;
            Some(f(local))
        })
        .ok()
        .flatten()
}

/// Gives the calling thread a front of cache `cache` (classes of `sizes` bytes) with a lane for
/// `stream` (whose shared lane has `shared` free bytes), creating the front (and adding it to
/// `registry`) when missing. Returns the parked blocks of a lane taken over for `stream`, as
/// (stream, class, record index): the caller returns them to the shared lanes.
pub(crate) fn register(
    cache: u64,
    sizes: &[usize],
    stream: &Stream,
    shared: impl FnOnce() -> Arc<AtomicUsize>,
    registry: &Mutex<Vec<Arc<Front>>>,
) -> Vec<(Stream, usize, u32)> {
    FRONTS
        .try_with(|v| {
            let Ok(mut v) = v.try_borrow_mut() else { return Vec::new() };
            if !v.0.iter().any(|l| l.cache == cache) {
                v.0.retain(|l| !l.front.dead.load(Ordering::Acquire));
                let front = Arc::new(Front::new(sizes));
                lock(registry).push(front.clone());
                v.0.push(Local { cache, front, streams: [NO_STREAM; LANES], shared: Default::default(), victim: 0 });
            }
            match v.0.iter_mut().find(|l| l.cache == cache) {
                Some(l) => l.open_lane(stream, shared),
                None => Vec::new(),
            }
        })
        .unwrap_or_default()
}
