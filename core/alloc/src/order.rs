//! Stream-ordered reuse shared by every strategy: per-stream lanes in lock-sharded slots.
//!
//! A *lane* holds the free memory of one stream (RMM's per-stream free lists,
//! `stream_ordered_memory_resource.hpp`). Lanes live in [`SLOTS`] slots, each behind its own
//! mutex and chosen by the stream id (or by the host thread, for arenas), so allocation and free
//! on one stream take one uncontended lock and no global one.
//!
//! Every free bumps the lane's *epoch*. A block freed at epoch `e` on stream `f` is reusable:
//! * on `f` at once (stream order);
//! * on another stream `s` under [`Reuse::FollowEvents`] after `s` waits on an event recorded on
//!   `f` at epoch `>= e` (recorded lazily, when a steal first needs it: CUDA's
//!   `cudaMemPoolReuseFollowEventDependencies`, RMM's cross-stream steal);
//! * under [`Reuse::Opportunistic`] once such an event is known complete, with no wait inserted
//!   (CUB's `CachingDeviceAllocator`, CUDA's `cudaMemPoolReuseAllowOpportunistic`).
//!
//! Candidate lanes are always visited in *rank* order (the order in which the allocator first
//! saw their streams), never in hash or address order, so the same trace replayed twice makes
//! the same choices: with [`Reuse::FollowEvents`] the strategies are deterministic.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use tenor_ports::{AllocError, Event, Stream};

/// Number of lock shards.
pub(crate) const SLOTS: usize = 64;

/// How a block freed on one stream may be reused on another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reuse {
    /// The allocating stream waits on an event recorded on the freeing stream: always correct,
    /// deterministic, and it may serialise the two streams (an *inserted wait*).
    FollowEvents,
    /// Reuse only once an event recorded after the free has completed, as the host observes it
    /// at that moment: no inserted wait, but which block is reused depends on device progress.
    Opportunistic,
}

/// How lanes are spread over the slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keying {
    /// By stream: one thread per stream never shares a lock with another.
    Stream,
    /// By host thread (arenas): a thread's small blocks stay in its own slot.
    Thread,
}

/// A multiplicative hasher for `u64` keys (addresses, ids): one multiply, no DoS resistance
/// needed for keys the allocator made itself.
#[derive(Default)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01B3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ (v >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A `HashMap` with [`FastHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// One stream's free memory and ordering state.
#[derive(Debug)]
pub(crate) struct Lane<P> {
    pub(crate) stream: Stream,
    pub(crate) rank: u64,
    /// Frees so far on this lane.
    pub(crate) epoch: u64,
    /// Latest event recorded on the stream and the epoch it covers.
    mark: Option<(u64, Event)>,
    pub(crate) free: P,
}

/// One lock shard.
#[derive(Debug)]
pub(crate) struct Slot<P, L> {
    index: usize,
    /// Lanes in order of creation (never removed, so an index stays valid).
    pub(crate) lanes: Vec<Lane<P>>,
    /// Stream id to its lane's index in `lanes` (a slot holds the lanes of many streams when
    /// there are thousands: no linear search per call).
    by_stream: FastMap<u64, usize>,
    pub(crate) live: FastMap<u64, L>,
    pub(crate) used: usize,
    pub(crate) peak_used: usize,
}

impl<P: Default, L> Slot<P, L> {
    /// Index of the lane of `stream`, created (with a rank from `ranks`) when missing.
    pub(crate) fn lane_index(&mut self, stream: &Stream, ranks: &Ranks) -> usize {
        if let Some(&i) = self.by_stream.get(&stream.id()) {
            return i;
        }
        ranks.note_slot(self.index);
        self.by_stream.insert(stream.id(), self.lanes.len());
        self.lanes.push(Lane {
            stream: stream.clone(),
            rank: ranks.rank(stream),
            epoch: 0,
            mark: None,
            free: P::default(),
        });
        self.lanes.len() - 1
    }
    /// Adds `bytes` to the slot's used bytes.
    pub(crate) fn add_used(&mut self, bytes: usize) {
        self.used += bytes;
        self.peak_used = self.peak_used.max(self.used);
    }
}

#[repr(align(128))]
struct Padded<T>(T);

/// One slot behind its lock, on its own cache lines.
type Shard<P, L> = Padded<Mutex<Slot<P, L>>>;

/// First-seen order of streams, and the slots that hold lanes.
#[derive(Debug, Default)]
pub(crate) struct Ranks {
    map: Mutex<FastMap<u64, u64>>,
    occupied: Mutex<Vec<usize>>,
}

impl Ranks {
    fn note_slot(&self, slot: usize) {
        let mut o = lock(&self.occupied);
        if !o.contains(&slot) {
            o.push(slot);
            o.sort_unstable();
        }
    }

    fn rank(&self, stream: &Stream) -> u64 {
        let mut m = self.map.lock().unwrap_or_else(|p| p.into_inner());
        let n = m.len() as u64;
        *m.entry(stream.id()).or_insert(n)
    }
}

/// The slots, the ranks and the inserted-wait log of one strategy.
pub(crate) struct Shards<P, L> {
    slots: Box<[Shard<P, L>]>,
    pub(crate) ranks: Ranks,
    pub(crate) reuse: Reuse,
    keying: Keying,
    waits: AtomicU64,
    wait_log: Mutex<Vec<(u64, u64)>>,
}

impl<P, L> std::fmt::Debug for Shards<P, L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Shards({:?}, {:?}, {} waits)", self.reuse, self.keying, self.waits.load(Ordering::Relaxed))
    }
}

thread_local! {
    static THREAD_INDEX: usize = next_thread_index();
}

/// A small per-process index of the calling host thread (0, 1, 2, ... in first-use order).
pub(crate) fn thread_index() -> usize {
    THREAD_INDEX.with(|t| *t)
}

fn next_thread_index() -> usize {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed) as usize
}

/// Locks a mutex, ignoring poisoning (allocator state stays consistent between statements).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Converts a stream failure inside the allocator.
pub(crate) fn stream_err(e: tenor_ports::ComputeError) -> AllocError {
    AllocError::Stream(e.to_string())
}

impl<P: Default, L> Shards<P, L> {
    pub(crate) fn new(reuse: Reuse, keying: Keying) -> Self {
        let slots = (0..SLOTS)
            .map(|index| {
                Padded(Mutex::new(Slot {
                    index,
                    lanes: Vec::new(),
                    by_stream: FastMap::default(),
                    live: FastMap::default(),
                    used: 0,
                    peak_used: 0,
                }))
            })
            .collect();
        Self {
            slots,
            ranks: Ranks::default(),
            reuse,
            keying,
            waits: AtomicU64::new(0),
            wait_log: Mutex::new(Vec::new()),
        }
    }

    /// The slot for an operation of the current thread on `stream`.
    pub(crate) fn slot_of(&self, stream: &Stream) -> usize {
        match self.keying {
            Keying::Stream => (stream.id() as usize) % SLOTS,
            Keying::Thread => thread_index() % SLOTS,
        }
    }

    /// Locks slot `i`.
    pub(crate) fn lock(&self, i: usize) -> MutexGuard<'_, Slot<P, L>> {
        lock(&self.slots[i].0)
    }

    /// Locks every slot, in index order (the only order in which more than one is held).
    pub(crate) fn lock_all(&self) -> Vec<MutexGuard<'_, Slot<P, L>>> {
        self.slots.iter().map(|s| lock(&s.0)).collect()
    }

    /// Removes the live entry of `ptr`, looking in slot `first` and then in every other slot.
    pub(crate) fn take_live(&self, ptr: u64, first: usize) -> Option<(usize, L)> {
        (0..SLOTS).map(|k| (first + k) % SLOTS).find_map(|i| {
            let mut g = self.lock(i);
            g.live.remove(&ptr).map(|l| (i, l))
        })
    }

    /// Lanes other than `stream`'s for which `has` holds, as (rank, slot, index in the slot's
    /// lanes), in rank order.
    pub(crate) fn candidates(&self, stream: &Stream, has: impl Fn(&P) -> bool) -> Vec<(u64, usize, usize)> {
        let mut v = Vec::new();
        let occupied = lock(&self.ranks.occupied).clone();
        for i in occupied {
            let g = self.lock(i);
            for (li, l) in g.lanes.iter().enumerate() {
                if l.stream.id() != stream.id() && has(&l.free) {
                    v.push((l.rank, i, li));
                }
            }
        }
        v.sort_unstable();
        v
    }

    /// Total inserted waits so far.
    pub(crate) fn waits(&self) -> u64 {
        self.waits.load(Ordering::Relaxed)
    }

    /// The inserted waits so far as (rank of the waiting stream, rank of the awaited stream).
    pub(crate) fn wait_log(&self) -> Vec<(u64, u64)> {
        lock(&self.wait_log).clone()
    }

    /// Makes memory of `lane` freed at `epoch` usable on `thief`: per the reuse policy, inserts
    /// a wait (returns true) or reports whether completion was observed.
    ///
    /// # Errors
    /// A failed event record, query or wait.
    pub(crate) fn make_ready(&self, thief: &Stream, lane: &mut Lane<P>, epoch: u64) -> Result<bool, AllocError> {
        if lane.stream.id() == thief.id() {
            return Ok(true);
        }
        match self.reuse {
            Reuse::FollowEvents => {
                let ev = Self::mark(lane, epoch)?;
                thief.wait(&ev).map_err(stream_err)?;
                self.note_wait(thief, lane.rank);
                Ok(true)
            }
            Reuse::Opportunistic => match &lane.mark {
                Some((covers, ev)) if *covers >= epoch => {
                    if ev.is_complete().map_err(stream_err)? {
                        ev.synchronize().map_err(stream_err)?; // the host observed completion
                        Ok(true)
                    } else {
                        Ok(false)
                    }
                }
                Some((_, ev)) if !ev.is_complete().map_err(stream_err)? => Ok(false),
                _ => {
                    Self::mark(lane, epoch)?;
                    Ok(false)
                }
            },
        }
    }

    /// Makes `thief` wait on `event` of stream `owner` (a block coming back from the release
    /// queue), noting the inserted wait.
    pub(crate) fn wait_on(&self, thief: &Stream, owner: &Stream, event: &Event) -> Result<(), AllocError> {
        if owner.id() == thief.id() {
            return Ok(());
        }
        thief.wait(event).map_err(stream_err)?;
        let r = self.ranks.rank(owner);
        self.note_wait(thief, r);
        Ok(())
    }

    /// Orders `stream` after everything freed so far on `lane` (for returns to the upstream).
    pub(crate) fn order_after(&self, stream: &Stream, lane: &mut Lane<P>) -> Result<(), AllocError> {
        if lane.stream.id() == stream.id() {
            return Ok(());
        }
        let ev = Self::mark(lane, lane.epoch)?;
        stream.wait(&ev).map_err(stream_err)?;
        self.note_wait(stream, lane.rank);
        Ok(())
    }

    fn note_wait(&self, waiter: &Stream, awaited: u64) {
        self.waits.fetch_add(1, Ordering::Relaxed);
        let w = self.ranks.rank(waiter);
        lock(&self.wait_log).push((w, awaited));
    }

    fn mark(lane: &mut Lane<P>, epoch: u64) -> Result<Event, AllocError> {
        if let Some((covers, ev)) = &lane.mark {
            if *covers >= epoch {
                return Ok(ev.clone());
            }
        }
        let ev = lane.stream.record().map_err(stream_err)?;
        lane.mark = Some((lane.epoch, ev.clone()));
        Ok(ev)
    }
}

/// How memory goes back to the upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReleaseMode {
    /// At once, on the freeing stream: the upstream honours the port's stream order (rule 3)
    /// itself (this crate's [`crate::Pool`], CUDA's stream-ordered pool).
    Direct,
    /// Queued until an event recorded on the freeing stream is seen complete (opportunistic).
    Deferred,
    /// The host waits for the freeing stream's work, returns the block and waits again:
    /// deterministic, for upstreams that may hand a block to another stream at once.
    Synchronous,
}

impl ReleaseMode {
    /// The mode for an upstream that does (`ordered`) or may not honour stream order, under
    /// the reuse policy `reuse`.
    pub(crate) fn pick(ordered: bool, reuse: Reuse) -> Self {
        match (ordered, reuse) {
            (true, _) => Self::Direct,
            (false, Reuse::Opportunistic) => Self::Deferred,
            (false, Reuse::FollowEvents) => Self::Synchronous,
        }
    }
}

/// Returns memory to an upstream per its [`ReleaseMode`].
///
/// An upstream that does not itself order reuse across streams (a first-fit device allocator,
/// `cudaFree`-like calls, the simulated device's allocator) may hand a returned block to any
/// stream at once, so a return must be ordered before every later use on any stream: the host
/// observes an event recorded on the freeing stream after the free, returns the block, and
/// synchronises with the stream after the upstream's free, as CUDA's pool releases memory to
/// the OS only at a synchronisation. [`ReleaseMode::Deferred`] queues blocks until their event is
/// seen complete (and a request of the same size takes one back from the queue);
/// [`ReleaseMode::Synchronous`] waits at once, so nothing depends on device timing. Returns are
/// rare (trim, a cache above its threshold, requests above the classes), never on the fast path.
#[derive(Debug)]
pub(crate) struct Releaser {
    mode: ReleaseMode,
    pending: Mutex<Vec<(tenor_ports::Block, Stream, Event)>>,
}

impl Releaser {
    pub(crate) fn new(mode: ReleaseMode) -> Self {
        Self { mode, pending: Mutex::new(Vec::new()) }
    }

    /// Returns `block`, freed in the order of `stream`, per the mode.
    ///
    /// # Safety
    /// As [`tenor_ports::Allocator::deallocate`] on `upstream`: the caller owns `block` (no live
    /// block of a user lies in it) and later work that uses it is ordered before `stream`.
    pub(crate) unsafe fn release(
        &self,
        upstream: &dyn tenor_ports::Allocator,
        block: tenor_ports::Block,
        stream: &Stream,
    ) -> Result<(), AllocError> {
        if self.mode == ReleaseMode::Direct {
            // SAFETY: this method's contract, passed on unchanged.
            return unsafe { upstream.deallocate(block, stream) };
        }
        let ev = stream.record().map_err(stream_err)?;
        lock(&self.pending).push((block, stream.clone(), ev));
        self.collect(upstream, false)
    }

    /// Takes back a queued block of `min..=max` bytes for reuse, with the stream it was freed
    /// on and the event recorded after the free (the new user must wait on it).
    pub(crate) fn rescue(&self, min: usize, max: usize) -> Option<(tenor_ports::Block, Stream, Event)> {
        let mut p = lock(&self.pending);
        let i = p.iter().position(|(b, _, _)| (min..=max).contains(&b.size))?;
        Some(p.remove(i))
    }

    /// Returns queued blocks whose events completed (every one, blocking, when `all` or in
    /// synchronous mode).
    pub(crate) fn collect(&self, upstream: &dyn tenor_ports::Allocator, all: bool) -> Result<(), AllocError> {
        let all = all || self.mode == ReleaseMode::Synchronous;
        let ready: Vec<(tenor_ports::Block, Stream, Event)> = {
            let mut p = lock(&self.pending);
            if p.is_empty() {
                return Ok(());
            }
            let mut ready = Vec::new();
            let mut k = 0;
            while k < p.len() {
                if all || p[k].2.is_complete().map_err(stream_err)? {
                    ready.push(p.remove(k));
                } else {
                    k += 1;
                }
            }
            ready
        };
        let mut result = Ok(());
        for (block, stream, ev) in ready {
            let r = ev
                .synchronize()
                .map_err(stream_err)
                // SAFETY: queued by `release`, whose caller owned the block; the event recorded
                // after its last use has completed (synchronised just above).
                .and_then(|()| unsafe { upstream.deallocate(block, &stream) })
                .and_then(|()| stream.synchronize().map_err(stream_err));
            if let Err(e) = r {
                result = Err(e);
            }
        }
        result
    }
}
