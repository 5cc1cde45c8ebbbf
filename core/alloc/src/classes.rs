//! The size-class cache behind binning, caching, the slab and the arena's small blocks.
//!
//! A request is rounded up to the smallest class that holds it (requests above the largest
//! class go to the upstream, and come back through the release queue). Each stream's lane keeps one LIFO stack of free blocks per
//! class. Blocks come from the upstream either one per upstream allocation (CUB's caching
//! allocator) or carved from chunks of `chunk_bytes` (RMM's `fixed_size_memory_resource`, a
//! slab). A miss on the stream's own lane steals from other streams' lanes through
//! [`crate::order`], and only then asks the upstream.
//!
//! The fast path takes no lock: each thread's [`crate::front`] parks the last block freed per
//! class and stream, and a block's record ([`crate::records`], found from its id) says that it
//! is live, its class and its job. Frees that find the front's slot taken, and allocations that
//! find it empty, go to the shared lanes under their slot's lock.

use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tenor_ports::{AllocError, AllocReport, Allocator, Block, Stream};

use crate::budget::JobBudgets;
use crate::front::{self, Front, Park};
use crate::order::{lock, FastMap, Keying, ReleaseMode, Releaser, Reuse, Shards};
use crate::records::Records;
use crate::{ids, job, FreeSpace};

/// Record index of a block without a record (all in use): it is kept in the slot's map.
const NO_RECORD: u32 = u32::MAX;

/// Class index of blocks that went to the `large` allocator.
const LARGE: u32 = u32::MAX;

/// How a class cache is set up.
#[derive(Debug, Clone)]
pub(crate) struct ClassSpec {
    pub(crate) name: String,
    /// Class sizes in bytes, ascending, each a multiple of 256.
    pub(crate) sizes: Vec<usize>,
    /// Upstream chunk carved into blocks of a class (0: one block per upstream allocation).
    pub(crate) chunk_bytes: usize,
    /// Free bytes a lane keeps; a single-block chunk freed above it returns to the upstream.
    pub(crate) max_cached: usize,
    pub(crate) reuse: Reuse,
    pub(crate) keying: Keying,
    /// Largest share of a class a request may leave unused; requests that would waste more go
    /// to the upstream (1.0: every request up to the largest class is rounded up).
    pub(crate) max_waste: f64,
    /// Whether the upstream itself orders reuse across streams (see [`ReleaseMode`]).
    pub(crate) upstream_ordered: bool,
}

#[derive(Debug, Clone, Copy)]
struct Cached {
    ptr: u64,
    chunk: u64,
    epoch: u64,
    record: u32,
}

#[derive(Debug, Default)]
pub(crate) struct Lists {
    classes: Vec<Vec<Cached>>,
    cached: usize,
    /// `cached`, readable without the slot's lock (by the threads' fronts).
    mirror: Arc<AtomicUsize>,
}

impl Lists {
    fn has(&self, c: usize) -> bool {
        self.classes.get(c).is_some_and(|v| !v.is_empty())
    }
    fn push(&mut self, c: usize, size: usize, x: Cached) {
        if self.classes.len() <= c {
            self.classes.resize_with(c + 1, Vec::new);
        }
        self.classes[c].push(x);
        self.add_cached(size as isize);
    }
    fn add_cached(&mut self, bytes: isize) {
        self.cached = self.cached.wrapping_add_signed(bytes);
        self.mirror.store(self.cached, Ordering::Relaxed);
    }
}

#[derive(Debug)]
pub(crate) struct Live {
    class: u32,
    chunk: u64,
    job: u64,
    size: usize,
    record: u32,
}

#[derive(Debug)]
struct Chunk {
    block: Block,
    class: usize,
    blocks: usize,
}

static NEXT_CACHE: AtomicU64 = AtomicU64::new(1);

/// A size-class cache over an upstream.
pub(crate) struct ClassCache {
    spec: ClassSpec,
    upstream: Arc<dyn Allocator>,
    shards: Shards<Lists, Live>,
    chunks: std::sync::Mutex<FastMap<u64, Chunk>>,
    reserved: AtomicUsize,
    peak_reserved: AtomicUsize,
    budgets: Option<Arc<JobBudgets>>,
    releaser: Releaser,
    /// `Some(lo)` when the classes are 2^lo, 2^(lo+1), ... (direct class lookup).
    pow2_lo: Option<u32>,
    /// Process-wide unique id of this cache (keys the threads' fronts).
    uid: u64,
    records: Records,
    /// Every thread's front of this cache.
    fronts: Mutex<Vec<Arc<Front>>>,
    /// Handed-out (bytes, blocks) accounted while a thread had no front (thread teardown).
    stray: (AtomicI64, AtomicI64),
}

impl std::fmt::Debug for ClassCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClassCache").field("spec", &self.spec).field("upstream", &self.upstream.name()).finish()
    }
}

impl ClassCache {
    pub(crate) fn new(spec: ClassSpec, upstream: Arc<dyn Allocator>, budgets: Option<Arc<JobBudgets>>) -> Self {
        let lo = spec.sizes.first().map_or(0, |s| s.trailing_zeros());
        let pow2 = spec.sizes.iter().enumerate().all(|(i, &s)| s == 1usize << (lo as usize + i));
        Self {
            pow2_lo: (pow2 && !spec.sizes.is_empty()).then_some(lo),
            shards: Shards::new(spec.reuse, spec.keying),
            releaser: Releaser::new(ReleaseMode::pick(spec.upstream_ordered, spec.reuse)),
            spec,
            upstream,
            chunks: std::sync::Mutex::new(FastMap::default()),
            reserved: AtomicUsize::new(0),
            peak_reserved: AtomicUsize::new(0),
            budgets,
            uid: NEXT_CACHE.fetch_add(1, Ordering::Relaxed),
            records: Records::default(),
            fronts: Mutex::new(Vec::new()),
            stray: (AtomicI64::new(0), AtomicI64::new(0)),
        }
    }

    pub(crate) fn name(&self) -> &str {
        &self.spec.name
    }

    fn class_of(&self, bytes: usize) -> Option<usize> {
        if let Some(lo) = self.pow2_lo {
            // Consecutive powers of two from 2^lo: the class is the exponent, no search.
            let e = bytes.checked_next_power_of_two().map_or(usize::BITS, usize::trailing_zeros).max(lo);
            // The smallest class holding `bytes`, as the search below would find it.
            let c = (e - lo) as usize;
            return (c < self.spec.sizes.len() && self.fits(c, bytes)).then_some(c);
        }
        self.search(bytes)
    }

    fn search(&self, bytes: usize) -> Option<usize> {
        let i = self.spec.sizes.partition_point(|&c| c < bytes);
        (i < self.spec.sizes.len() && self.fits(i, bytes)).then_some(i)
    }

    /// Whether class `c` (at least `bytes`) wastes at most `max_waste` of itself on `bytes`.
    fn fits(&self, c: usize, bytes: usize) -> bool {
        let s = self.spec.sizes[c];
        self.spec.max_waste >= 1.0 || (s - bytes) as f64 <= self.spec.max_waste * s as f64
    }

    fn charge(&self, job: u64, bytes: usize) -> Result<(), AllocError> {
        match &self.budgets {
            Some(b) if job != 0 => b.charge(job, bytes),
            _ => Ok(()),
        }
    }

    fn refund(&self, job: u64, bytes: usize) {
        if let Some(b) = &self.budgets {
            if job != 0 {
                b.refund(job, bytes);
            }
        }
    }

    pub(crate) fn allocate(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError> {
        let job = if self.budgets.is_some() { job::current_job() } else { 0 };
        let Some(c) = self.class_of(bytes.max(1)) else {
            let b = self.allocate_large(bytes, stream)?;
            if let Err(e) = self.charge(job, b.size) {
                // SAFETY: `b` came from the upstream just above and was never handed out.
                unsafe { self.releaser.release(self.upstream.as_ref(), b, stream) }?;
                return Err(e);
            }
            let si = self.shards.slot_of(stream);
            let mut g = self.shards.lock(si);
            g.live.insert(b.ptr, Live { class: LARGE, chunk: 0, job, size: b.size, record: NO_RECORD });
            g.add_used(b.size);
            return Ok(b);
        };
        let size = self.spec.sizes[c];
        self.charge(job, size)?;
        // Fast path: the block this thread last freed in this class on this stream.
        if let Some(b) = front::with(self.uid, |f| self.pop_parked(f, c, size, job, stream)).flatten() {
            return Ok(b);
        }
        self.allocate_class(c, size, job, stream).inspect_err(|_| self.refund(job, size))
    }

    /// The block parked in front `f` for (`stream`, class `c`), handed out.
    fn pop_parked(&self, f: &front::Local, c: usize, size: usize, job: u64, stream: &Stream) -> Option<Block> {
        let r = f.pop(stream.id(), c)?;
        let rec = self.records.get(r)?;
        let Some(id) = ids::indexed(r) else {
            let _ = f.park(stream.id(), c, r, None); // ids with an index used up: the slow path keeps a map
            return None;
        };
        rec.hand_out(id, job);
        f.account(size as i64, 1);
        Some(Block { ptr: rec.ptr(), size, id })
    }

    /// Gives the calling thread a front of this cache with a lane for `stream` (watching the
    /// free bytes of the stream's shared lane).
    ///
    /// # Errors
    /// A failed return of the blocks parked on a lane this stream takes over.
    fn register(&self, stream: &Stream) -> Result<(), AllocError> {
        let mirror = || {
            let mut g = self.shards.lock(self.shards.slot_of(stream));
            let li = g.lane_index(stream, &self.shards.ranks);
            g.lanes[li].free.mirror.clone()
        };
        let evicted = front::register(self.uid, &self.spec.sizes, stream, mirror, &self.fronts);
        self.put_back_parked(evicted)
    }

    /// Adds handed-out `bytes` and `blocks` (of blocks with a record) to the calling thread's
    /// counters.
    fn account(&self, bytes: i64, blocks: i64) {
        if front::with(self.uid, |f| f.account(bytes, blocks)).is_none() {
            self.stray.0.fetch_add(bytes, Ordering::Relaxed);
            self.stray.1.fetch_add(blocks, Ordering::Relaxed);
        }
    }

    /// A request above the classes: a block of the same rounded size back from the release
    /// queue, or the upstream.
    fn allocate_large(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError> {
        if let Some((b, owner, ev)) = self.releaser.rescue(bytes.max(1), bytes.max(1).next_multiple_of(256)) {
            self.shards.wait_on(stream, &owner, &ev)?;
            return Ok(b);
        }
        self.releaser.collect(self.upstream.as_ref(), false)?;
        self.upstream.allocate(bytes, stream)
    }

    fn allocate_class(&self, c: usize, size: usize, job: u64, stream: &Stream) -> Result<Block, AllocError> {
        self.register(stream)?;
        // Blocks of this class parked by this thread on any stream go to the shared lanes first,
        // where this stream (or, after an event, another) can take them.
        self.flush(Some(c))?;
        let si = self.shards.slot_of(stream);
        let popped = {
            let mut g = self.shards.lock(si);
            let li = g.lane_index(stream, &self.shards.ranks);
            let lane = &mut g.lanes[li].free;
            let x = lane.classes.get_mut(c).and_then(Vec::pop);
            if x.is_some() {
                lane.add_cached(-(size as isize));
            }
            x
        };
        let got = match popped {
            Some(x) => x,
            None => match self.steal(c, size, stream)? {
                Some(x) => x,
                None => self.refill(c, size, stream)?,
            },
        };
        Ok(self.hand_out(got, c, size, job, stream))
    }

    /// Hands out free block `x` of class `c`: through its record, or the slot's map when it has
    /// none.
    fn hand_out(&self, x: Cached, c: usize, size: usize, job: u64, stream: &Stream) -> Block {
        if let Some((rec, id)) = self.records.get(x.record).zip(ids::indexed(x.record)) {
            rec.hand_out(id, job);
            self.account(size as i64, 1);
            return Block { ptr: x.ptr, size, id };
        }
        let mut g = self.shards.lock(self.shards.slot_of(stream));
        g.live.insert(x.ptr, Live { class: c as u32, chunk: x.chunk, job, size, record: x.record });
        g.add_used(size);
        ids::block(x.ptr, size)
    }

    /// A block of class `c` from another stream's lane, made usable on `stream`.
    fn steal(&self, c: usize, size: usize, stream: &Stream) -> Result<Option<Cached>, AllocError> {
        for (_, si, li) in self.shards.candidates(stream, |l: &Lists| l.has(c)) {
            let mut g = self.shards.lock(si);
            let Some(lane) = g.lanes.get_mut(li) else { continue };
            let Some(pos) = (match self.shards.reuse {
                Reuse::FollowEvents => lane.free.classes.get(c).and_then(|v| v.len().checked_sub(1)),
                Reuse::Opportunistic => lane.free.classes.get(c).and_then(|v| (!v.is_empty()).then_some(0)),
            }) else {
                continue;
            };
            let epoch = lane.free.classes[c][pos].epoch;
            if self.shards.make_ready(stream, lane, epoch)? {
                let x = lane.free.classes[c].remove(pos);
                lane.free.add_cached(-(size as isize));
                return Ok(Some(x));
            }
        }
        Ok(None)
    }

    /// New blocks of class `c` from the upstream; the first is returned, the rest cached on
    /// `stream`'s lane.
    fn refill(&self, c: usize, size: usize, stream: &Stream) -> Result<Cached, AllocError> {
        let chunk_bytes = if self.spec.chunk_bytes <= size { size } else { self.spec.chunk_bytes / size * size };
        let record = |ptr: u64, chunk: u64| self.records.acquire(ptr, chunk, c).unwrap_or(NO_RECORD);
        if chunk_bytes == size {
            if let Some((block, owner, ev)) = self.releaser.rescue(size, size) {
                self.shards.wait_on(stream, &owner, &ev)?;
                let r = self.reserved.fetch_add(block.size, Ordering::Relaxed) + block.size;
                self.peak_reserved.fetch_max(r, Ordering::Relaxed);
                lock(&self.chunks).insert(block.ptr, Chunk { block, class: c, blocks: 1 });
                return Ok(Cached { ptr: block.ptr, chunk: block.ptr, epoch: 0, record: record(block.ptr, block.ptr) });
            }
        }
        self.releaser.collect(self.upstream.as_ref(), false)?;
        let block = match self.upstream.allocate(chunk_bytes, stream) {
            Ok(b) => b,
            Err(AllocError::OutOfMemory { .. }) => {
                self.release_free(0)?;
                self.upstream.allocate(chunk_bytes, stream)?
            }
            Err(e) => return Err(e),
        };
        let blocks = chunk_bytes / size;
        let r = self.reserved.fetch_add(block.size, Ordering::Relaxed) + block.size;
        self.peak_reserved.fetch_max(r, Ordering::Relaxed);
        lock(&self.chunks).insert(block.ptr, Chunk { block, class: c, blocks });
        if blocks > 1 {
            let si = self.shards.slot_of(stream);
            let mut g = self.shards.lock(si);
            let li = g.lane_index(stream, &self.shards.ranks);
            let lane = &mut g.lanes[li];
            // New memory counts as a new event on this stream: the upstream may have made the
            // stream wait on others to hand it over, and a mark recorded before that wait must
            // not cover these blocks.
            lane.epoch += 1;
            let epoch = lane.epoch;
            for k in (1..blocks).rev() {
                let ptr = block.ptr + (k * size) as u64;
                lane.free.push(c, size, Cached { ptr, chunk: block.ptr, epoch, record: record(ptr, block.ptr) });
            }
        }
        Ok(Cached { ptr: block.ptr, chunk: block.ptr, epoch: 0, record: record(block.ptr, block.ptr) })
    }

    /// Returns `block` (see [`tenor_ports::Allocator::deallocate`]).
    ///
    /// # Safety
    /// As [`tenor_ports::Allocator::deallocate`]: the caller owns `block`.
    pub(crate) unsafe fn deallocate(&self, block: Block, stream: &Stream) -> Result<(), AllocError> {
        // Fast path: a block with a record, parked in this thread's front when its slot is free.
        if let Some((r, rec)) = ids::index_of(block.id).and_then(|r| Some((r, self.records.get(r)?))) {
            if let Some(job) = rec.take_back(block.id, block.ptr) {
                let c = rec.class();
                let size = self.spec.sizes[c];
                self.refund(job, size);
                // A class taken whole from the upstream parks only while the stream's free bytes
                // (shared lane and parked) stay within the release threshold.
                let limit = (self.spec.chunk_bytes <= size).then_some(self.spec.max_cached);
                let park = front::with(self.uid, |f| {
                    let p = f.park(stream.id(), c, r, limit);
                    if matches!(p, Park::Parked | Park::Evicted(_)) {
                        f.account(-(size as i64), -1);
                    }
                    p
                });
                return match park {
                    Some(Park::Parked) => Ok(()),
                    // The block parked before goes to the shared lane, under the new one.
                    Some(Park::Evicted(old)) => self.put_back_parked(vec![(stream.clone(), c, old)]),
                    Some(Park::Refused(parked)) => {
                        self.account(-(size as i64), -1);
                        self.put_back(stream, c, size, self.cached(r), parked)
                    }
                    Some(Park::NoLane) | None => {
                        self.account(-(size as i64), -1);
                        self.put_back(stream, c, size, self.cached(r), 0)?;
                        // The thread's next free on this stream parks.
                        self.register(stream)
                    }
                };
            }
        }
        let si = self.shards.slot_of(stream);
        let mut g = self.shards.lock(si);
        let live = match g.live.remove(&block.ptr) {
            Some(l) => {
                g.used -= l.size;
                l
            }
            None => {
                drop(g);
                let (oi, l) = self
                    .shards
                    .take_live(block.ptr, si)
                    .ok_or(AllocError::UnknownBlock { ptr: block.ptr, size: block.size })?;
                self.shards.lock(oi).used -= l.size;
                l
            }
        };
        self.refund(live.job, live.size);
        if live.class == LARGE {
            // SAFETY: a large block is one upstream block; the caller owns it (this method's
            // contract) and it has just left the live table.
            return unsafe { self.releaser.release(self.upstream.as_ref(), block, stream) };
        }
        let x = Cached { ptr: block.ptr, chunk: live.chunk, epoch: 0, record: live.record };
        self.put_back(stream, live.class as usize, live.size, x, 0)
    }

    /// The free block of record `r` (its epoch is set when it joins a lane).
    fn cached(&self, r: u32) -> Cached {
        let (ptr, chunk) = self.records.get(r).map_or((0, 0), |rec| (rec.ptr(), rec.chunk()));
        Cached { ptr, chunk, epoch: 0, record: r }
    }

    /// Returns free block `x` of class `c` to `stream`'s shared lane under a new epoch, or, for
    /// a class taken whole from the upstream when the lane (with `parked` bytes parked by this
    /// thread on the stream) holds its threshold already, to the upstream.
    fn put_back(&self, stream: &Stream, c: usize, size: usize, x: Cached, parked: usize) -> Result<(), AllocError> {
        let si = self.shards.slot_of(stream);
        let mut g = self.shards.lock(si);
        let li = g.lane_index(stream, &self.shards.ranks);
        let lane = &mut g.lanes[li];
        lane.epoch += 1;
        let unit = self.spec.chunk_bytes <= size;
        if unit && lane.free.cached + parked + size > self.spec.max_cached {
            drop(g);
            let chunk = lock(&self.chunks).remove(&x.chunk);
            if let Some(ch) = chunk {
                self.reserved.fetch_sub(ch.block.size, Ordering::Relaxed);
                self.drop_record(x.record);
                // SAFETY: the chunk of a class taken whole from the upstream holds one block, `x`,
                // which its owner has just returned; it has left the chunk table.
                return unsafe { self.releaser.release(self.upstream.as_ref(), ch.block, stream) };
            }
            return Ok(());
        }
        let epoch = lane.epoch;
        lane.free.push(c, size, Cached { epoch, ..x });
        Ok(())
    }

    fn drop_record(&self, record: u32) {
        if record != NO_RECORD {
            self.records.release(record);
        }
    }

    /// Moves the blocks of class `class` (every class when `None`) parked in the calling
    /// thread's front to the shared lanes.
    fn flush(&self, class: Option<usize>) -> Result<(), AllocError> {
        let parked = front::with(self.uid, |f| f.take(class)).unwrap_or_default();
        self.put_back_parked(parked)
    }

    fn put_back_parked(&self, parked: Vec<(Stream, usize, u32)>) -> Result<(), AllocError> {
        let mut result = Ok(());
        for (s, c, r) in parked {
            if let Err(e) = self.put_back(&s, c, self.spec.sizes[c], self.cached(r), 0) {
                result = Err(e);
            }
        }
        result
    }

    /// Moves to the shared lanes the parked blocks of the calling thread, of exited threads, and
    /// (`all`, only while the cache is dropped) of every thread.
    fn gather(&self, all: bool) -> Result<(), AllocError> {
        let mut result = self.flush(None);
        let fronts: Vec<Arc<Front>> = lock(&self.fronts).clone();
        for f in fronts {
            if all || f.is_orphaned() {
                if let Err(e) = self.put_back_parked(f.take(None)) {
                    result = Err(e);
                }
            }
        }
        result
    }

    /// Returns chunks whose blocks are all free to the upstream until at most `keep` bytes
    /// stay reserved. The returning stream first waits on the other lanes holding parts.
    /// Blocks parked by other live threads stay (at most one per class and stream each).
    pub(crate) fn release_free(&self, keep: usize) -> Result<(), AllocError> {
        let gathered = self.gather(false);
        self.release_chunks(keep).and(gathered)
    }

    fn release_chunks(&self, keep: usize) -> Result<(), AllocError> {
        let mut slots = self.shards.lock_all();
        let mut chunks = lock(&self.chunks);
        let mut free_count: FastMap<u64, usize> = FastMap::default();
        for g in slots.iter() {
            for l in &g.lanes {
                for x in l.free.classes.iter().flatten() {
                    *free_count.entry(x.chunk).or_default() += 1;
                }
            }
        }
        let mut done: Vec<u64> = free_count
            .iter()
            .filter(|(k, n)| chunks.get(k).is_some_and(|ch| ch.blocks == **n))
            .map(|(k, _)| *k)
            .collect();
        done.sort_unstable();
        let mut result = Ok(());
        for ptr in done {
            if self.reserved.load(Ordering::Relaxed) <= keep {
                break;
            }
            let Some(ch) = chunks.remove(&ptr) else { continue };
            let size = self.spec.sizes[ch.class];
            // Lanes holding parts, by (slot, lane); the first one's stream returns the chunk.
            let mut holders: Vec<(usize, usize)> = Vec::new();
            for (si, g) in slots.iter().enumerate() {
                for (li, l) in g.lanes.iter().enumerate() {
                    if l.free.classes.get(ch.class).is_some_and(|v| v.iter().any(|x| x.chunk == ptr)) {
                        holders.push((si, li));
                    }
                }
            }
            let Some(&(s0, l0)) = holders.first() else { continue };
            let on = slots[s0].lanes[l0].stream.clone();
            for &(si, li) in &holders {
                let lane = &mut slots[si].lanes[li];
                if let Err(e) = self.shards.order_after(&on, lane) {
                    result = Err(e);
                }
                let v = &mut lane.free.classes[ch.class];
                let before = v.len();
                v.retain(|x| {
                    if x.chunk == ptr {
                        self.drop_record(x.record);
                    }
                    x.chunk != ptr
                });
                let gone = before - v.len();
                lane.free.add_cached(-((gone * size) as isize));
            }
            self.reserved.fetch_sub(ch.block.size, Ordering::Relaxed);
            // SAFETY: every block of the chunk is free (cached in the lanes found above, now
            // removed from them, each lane's stream ordered before `on`), and the chunk has left
            // the chunk table.
            if let Err(e) = unsafe { self.releaser.release(self.upstream.as_ref(), ch.block, &on) } {
                result = Err(e);
            }
        }
        drop(chunks);
        drop(slots);
        let all = self.releaser.collect(self.upstream.as_ref(), keep == 0);
        result.and(all)
    }

    /// Releases free chunks (see [`Self::release_free`]), then trims the upstream.
    pub(crate) fn trim(&self, keep: usize) -> Result<(), AllocError> {
        self.release_free(keep)?;
        self.upstream.trim(keep)
    }

    /// Handed-out (bytes, high watermark, blocks) of blocks with a record, over all threads.
    fn front_counters(&self) -> (i64, i64, i64) {
        let mut t = (self.stray.0.load(Ordering::Relaxed), 0, self.stray.1.load(Ordering::Relaxed));
        t.1 = t.0.max(0);
        for f in lock(&self.fronts).iter() {
            let (u, p, l) = f.counters();
            t = (t.0 + u, t.1 + p, t.2 + l);
        }
        t
    }

    pub(crate) fn report(&self) -> AllocReport {
        let mut r = AllocReport::default();
        for g in self.shards.lock_all() {
            r.used += g.used;
            r.peak_used += g.peak_used;
            r.live_blocks += g.live.len();
        }
        let (used, peak, live) = self.front_counters();
        r.used = (r.used as i64 + used).max(0) as usize;
        r.peak_used += peak.max(0) as usize;
        r.live_blocks = (r.live_blocks as i64 + live).max(0) as usize;
        r.reserved = self.reserved.load(Ordering::Relaxed);
        r.peak_reserved = self.peak_reserved.load(Ordering::Relaxed);
        r
    }

    pub(crate) fn reset_peaks(&self) {
        for mut g in self.shards.lock_all() {
            g.peak_used = g.used;
        }
        for f in lock(&self.fronts).iter() {
            f.reset_peak();
        }
        self.peak_reserved.store(self.reserved.load(Ordering::Relaxed), Ordering::Relaxed);
    }

    pub(crate) fn free_space(&self) -> FreeSpace {
        let mut f = FreeSpace::default();
        for g in self.shards.lock_all() {
            for l in &g.lanes {
                f.free_bytes += l.free.cached;
                for (c, v) in l.free.classes.iter().enumerate() {
                    if !v.is_empty() {
                        f.largest_free = f.largest_free.max(self.spec.sizes[c]);
                    }
                }
            }
        }
        for front in lock(&self.fronts).iter() {
            for (c, _) in front.parked() {
                f.free_bytes += self.spec.sizes[c];
                f.largest_free = f.largest_free.max(self.spec.sizes[c]);
            }
        }
        f
    }

    pub(crate) fn waits(&self) -> u64 {
        self.shards.waits()
    }

    pub(crate) fn wait_log(&self) -> Vec<(u64, u64)> {
        self.shards.wait_log()
    }
}

impl Drop for ClassCache {
    fn drop(&mut self) {
        // No call is in flight: every thread's parked blocks may be taken.
        let _ = self.gather(true);
        let _ = self.release_chunks(0);
        for f in lock(&self.fronts).iter() {
            f.kill();
        }
    }
}

/// Implements [`Allocator`] and [`Strategy`] for a newtype around a [`ClassCache`] field `cache`.
macro_rules! class_strategy {
    ($t:ty) => {
        // SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out
        // once until freed, as the trait's contract asks.
        unsafe impl tenor_ports::Allocator for $t {
            fn name(&self) -> &str {
                self.cache.name()
            }
            fn allocate(
                &self,
                bytes: usize,
                stream: &tenor_ports::Stream,
            ) -> Result<tenor_ports::Block, tenor_ports::AllocError> {
                self.cache.allocate(bytes, stream)
            }
            unsafe fn deallocate(
                &self,
                block: tenor_ports::Block,
                stream: &tenor_ports::Stream,
            ) -> Result<(), tenor_ports::AllocError> {
                // SAFETY: this method's contract (the caller owns `block`), passed on unchanged.
                unsafe { self.cache.deallocate(block, stream) }
            }
            fn report(&self) -> tenor_ports::AllocReport {
                self.cache.report()
            }
            fn reset_peaks(&self) {
                self.cache.reset_peaks();
            }
            fn trim(&self, keep_bytes: usize) -> Result<(), tenor_ports::AllocError> {
                self.cache.trim(keep_bytes)
            }
        }
        impl $crate::Strategy for $t {
            fn inserted_waits(&self) -> u64 {
                self.cache.waits()
            }
            fn wait_log(&self) -> Vec<(u64, u64)> {
                self.cache.wait_log()
            }
            fn free_space(&self) -> $crate::FreeSpace {
                self.cache.free_space()
            }
        }
    };
}
pub(crate) use class_strategy;
