//! Coalescing pool with per-stream free lists (RMM's `pool_memory_resource`).
//!
//! Memory comes from the upstream in chunks that grow geometrically (the first of
//! `initial_bytes`, then as large as everything reserved so far, capped by `maximum_bytes`).
//! Each stream's lane keeps its free ranges ordered by address (to coalesce with free
//! neighbours of the same chunk) and by size (best fit). An allocation tries its own lane, then
//! steals a best fit from other streams' lanes in rank order under the reuse policy (see
//! [`crate::order`]), then grows. Only the growth path and [`Allocator::trim`] take a lock
//! shared by all streams.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tenor_ports::allocator::align_up;
use tenor_ports::{AllocError, AllocReport, Allocator, Block, Stream};

use crate::order::{lock, FastMap, Keying, ReleaseMode, Releaser, Reuse, Shards};
use crate::{ids, FreeSpace, Strategy};

/// Alignment and granularity of pool blocks (CUDA's allocation granularity for small blocks).
pub const POOL_ALIGN: usize = 256;

/// Settings of a [`Pool`].
#[derive(Debug, Clone, Copy)]
pub struct PoolConfig {
    /// Size of the first upstream chunk in bytes.
    pub initial_bytes: usize,
    /// Hard limit on bytes taken from the upstream (`None`: no limit).
    pub maximum_bytes: Option<usize>,
    /// Cross-stream reuse policy; [`Reuse::FollowEvents`] is the deterministic one.
    pub reuse: Reuse,
    /// Whether the upstream orders reuse across streams itself (CUDA's stream-ordered pool);
    /// when not (a first-fit device allocator, the simulated device), returns to it wait for
    /// the freeing stream on the host.
    pub upstream_ordered: bool,
}

impl Default for PoolConfig {
    fn default() -> Self {
        Self { initial_bytes: 32 << 20, maximum_bytes: None, reuse: Reuse::FollowEvents, upstream_ordered: false }
    }
}

#[derive(Debug, Clone, Copy)]
struct Range {
    size: usize,
    chunk: u64,
    epoch: u64,
}

#[derive(Debug, Default)]
pub(crate) struct Ranges {
    /// Recently freed ranges, not yet coalesced: a same-size request takes one back without
    /// touching the trees (dlmalloc's and tcmalloc's quick lists).
    quick: Vec<(u64, Range)>,
    by_addr: BTreeMap<u64, Range>,
    by_size: BTreeSet<(usize, u64)>,
}

/// Ranges a lane keeps uncoalesced at most.
const QUICK: usize = 16;

impl Ranges {
    /// Takes back a recently freed range of exactly `size` bytes.
    fn take_quick(&mut self, size: usize) -> Option<(u64, Range)> {
        let i = self.quick.iter().rposition(|(_, r)| r.size == size)?;
        Some(self.quick.swap_remove(i))
    }
    /// Keeps a freed range uncoalesced for now.
    fn free_quick(&mut self, ptr: u64, r: Range) {
        if self.quick.len() == QUICK {
            self.flush();
        }
        self.quick.push((ptr, r));
    }
    /// Coalesces every quick range into the trees.
    fn flush(&mut self) {
        while let Some((p, r)) = self.quick.pop() {
            self.insert_coalesced(p, r);
        }
    }
    /// Whether some free range holds `size` bytes.
    fn fits(&self, size: usize) -> bool {
        self.best_fit(size).is_some() || self.quick.iter().any(|(_, r)| r.size >= size)
    }
    fn insert(&mut self, ptr: u64, r: Range) {
        self.by_addr.insert(ptr, r);
        self.by_size.insert((r.size, ptr));
    }
    fn remove(&mut self, ptr: u64) -> Option<Range> {
        let r = self.by_addr.remove(&ptr)?;
        self.by_size.remove(&(r.size, ptr));
        Some(r)
    }
    fn best_fit(&self, size: usize) -> Option<u64> {
        self.by_size.range((size, 0)..).next().map(|&(_, p)| p)
    }
    /// Inserts a freed range, merging with free neighbours of the same chunk.
    fn insert_coalesced(&mut self, mut ptr: u64, mut r: Range) {
        if let Some((&pp, &pr)) = self.by_addr.range(..ptr).next_back() {
            if pp + pr.size as u64 == ptr && pr.chunk == r.chunk {
                self.remove(pp);
                ptr = pp;
                r.size += pr.size;
                r.epoch = r.epoch.max(pr.epoch);
            }
        }
        let next = ptr + r.size as u64;
        if let Some(&nr) = self.by_addr.get(&next) {
            if nr.chunk == r.chunk {
                self.remove(next);
                r.size += nr.size;
                r.epoch = r.epoch.max(nr.epoch);
            }
        }
        self.insert(ptr, r);
    }
}

#[derive(Debug)]
pub(crate) struct Live {
    size: usize,
    chunk: u64,
}

/// A coalescing best-fit pool with per-stream free lists over any upstream.
pub struct Pool {
    upstream: Arc<dyn Allocator>,
    config: PoolConfig,
    shards: Shards<Ranges, Live>,
    chunks: Mutex<FastMap<u64, Block>>,
    reserved: AtomicUsize,
    peak_reserved: AtomicUsize,
    releaser: Releaser,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").field("config", &self.config).field("upstream", &self.upstream.name()).finish()
    }
}

impl Pool {
    /// A pool over `upstream`.
    pub fn new(upstream: Arc<dyn Allocator>, config: PoolConfig) -> Self {
        Self {
            upstream,
            config,
            shards: Shards::new(config.reuse, Keying::Stream),
            chunks: Mutex::new(FastMap::default()),
            reserved: AtomicUsize::new(0),
            peak_reserved: AtomicUsize::new(0),
            releaser: Releaser::new(ReleaseMode::pick(config.upstream_ordered, config.reuse)),
        }
    }

    /// Hands out `size` bytes at the start of free range `r` at `ptr`; the rest stays in `from`.
    fn take(ptr: u64, r: Range, size: usize, from: &mut Ranges) -> Block {
        if r.size > size {
            from.insert(ptr + size as u64, Range { size: r.size - size, chunk: r.chunk, epoch: r.epoch });
        }
        ids::block(ptr, size)
    }

    fn steal(&self, size: usize, stream: &Stream) -> Result<Option<(Block, u64)>, AllocError> {
        let cands = self.shards.candidates(stream, |l: &Ranges| l.fits(size));
        for (_, si, li) in cands {
            let mut g = self.shards.lock(si);
            let Some(lane) = g.lanes.get_mut(li) else { continue };
            lane.free.flush();
            let Some(p) = lane.free.best_fit(size) else { continue };
            let epoch = lane.free.by_addr[&p].epoch;
            if self.shards.make_ready(stream, lane, epoch)? {
                let Some(r) = lane.free.remove(p) else { continue };
                let b = Self::take(p, r, size, &mut lane.free);
                return Ok(Some((b, r.chunk)));
            }
        }
        Ok(None)
    }

    fn grow(&self, size: usize, stream: &Stream) -> Result<(Block, u64), AllocError> {
        let reserved = self.reserved.load(Ordering::Relaxed);
        let cap = self.config.maximum_bytes.unwrap_or(usize::MAX);
        let room = cap.saturating_sub(reserved);
        if size > room {
            self.trim(0)?;
            let room = cap.saturating_sub(self.reserved.load(Ordering::Relaxed));
            if size > room {
                return Err(AllocError::OutOfMemory { requested: size, available: room });
            }
        }
        self.releaser.collect(self.upstream.as_ref(), false)?;
        let want = if reserved == 0 { self.config.initial_bytes } else { reserved };
        let want = align_up(want.max(size).min(room.max(size)), POOL_ALIGN);
        let chunk = match self.upstream.allocate(want, stream) {
            Ok(b) => b,
            Err(AllocError::OutOfMemory { .. }) => match self.upstream.allocate(size, stream) {
                Ok(b) => b,
                Err(AllocError::OutOfMemory { .. }) => {
                    self.trim(0)?;
                    self.upstream.allocate(size, stream)?
                }
                Err(e) => return Err(e),
            },
            Err(e) => return Err(e),
        };
        let r = self.reserved.fetch_add(chunk.size, Ordering::Relaxed) + chunk.size;
        self.peak_reserved.fetch_max(r, Ordering::Relaxed);
        lock(&self.chunks).insert(chunk.ptr, chunk);
        let si = self.shards.slot_of(stream);
        let mut g = self.shards.lock(si);
        let li = g.lane_index(stream, &self.shards.ranks);
        let lane = &mut g.lanes[li];
        // New memory counts as a new event on this stream (see `ClassCache::refill`).
        lane.epoch += 1;
        let r = Range { size: chunk.size, chunk: chunk.ptr, epoch: lane.epoch };
        let b = Self::take(chunk.ptr, r, size, &mut lane.free);
        Ok((b, chunk.ptr))
    }

    fn release_free(&self, keep: usize) -> Result<(), AllocError> {
        let mut slots = self.shards.lock_all();
        for g in slots.iter_mut() {
            for l in g.lanes.iter_mut() {
                l.free.flush();
            }
        }
        let mut chunks = lock(&self.chunks);
        let mut free: FastMap<u64, usize> = FastMap::default();
        for g in slots.iter() {
            for l in &g.lanes {
                for r in l.free.by_addr.values() {
                    *free.entry(r.chunk).or_default() += r.size;
                }
            }
        }
        let mut done: Vec<u64> =
            free.iter().filter(|(k, n)| chunks.get(k).is_some_and(|b| b.size == **n)).map(|(k, _)| *k).collect();
        done.sort_unstable();
        let mut result = Ok(());
        for ptr in done {
            if self.reserved.load(Ordering::Relaxed) <= keep {
                break;
            }
            let Some(chunk) = chunks.remove(&ptr) else { continue };
            let mut holders: Vec<(usize, usize)> = Vec::new();
            for (si, g) in slots.iter().enumerate() {
                for (li, l) in g.lanes.iter().enumerate() {
                    if l.free.by_addr.values().any(|r| r.chunk == ptr) {
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
                let parts: Vec<u64> =
                    lane.free.by_addr.iter().filter(|(_, r)| r.chunk == ptr).map(|(p, _)| *p).collect();
                for p in parts {
                    lane.free.remove(p);
                }
            }
            self.reserved.fetch_sub(chunk.size, Ordering::Relaxed);
            // SAFETY: `chunk` is a chunk this pool took from the upstream, wholly free (no live
            // block lies in it: its free ranges add up to its size) and now removed from every
            // lane, each lane's stream ordered before `on` above.
            if let Err(e) = unsafe { self.releaser.release(self.upstream.as_ref(), chunk, &on) } {
                result = Err(e);
            }
        }
        drop(chunks);
        drop(slots);
        let all = self.releaser.collect(self.upstream.as_ref(), keep == 0);
        result.and(all)
    }
}

// SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out

// once until freed, as the trait's contract asks.

unsafe impl Allocator for Pool {
    fn name(&self) -> &str {
        "pool"
    }

    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError> {
        let size = align_up(bytes.max(1), POOL_ALIGN);
        let si = self.shards.slot_of(stream);
        {
            let mut g = self.shards.lock(si);
            let li = g.lane_index(stream, &self.shards.ranks);
            let lane = &mut g.lanes[li].free;
            if let Some((p, r)) = lane.take_quick(size) {
                g.live.insert(p, Live { size, chunk: r.chunk });
                g.add_used(size);
                return Ok(ids::block(p, size));
            }
            lane.flush();
            if let Some(p) = lane.best_fit(size) {
                if let Some(r) = lane.remove(p) {
                    let b = Self::take(p, r, size, lane);
                    g.live.insert(p, Live { size, chunk: r.chunk });
                    g.add_used(size);
                    return Ok(b);
                }
            }
        }
        let (b, chunk) = match self.steal(size, stream)? {
            Some(x) => x,
            None => self.grow(size, stream).map_err(|e| match e {
                AllocError::OutOfMemory { available, .. } => AllocError::OutOfMemory { requested: bytes, available },
                e => e,
            })?,
        };
        let mut g = self.shards.lock(si);
        g.live.insert(b.ptr, Live { size, chunk });
        g.add_used(size);
        Ok(b)
    }

    unsafe fn deallocate(&self, block: Block, stream: &Stream) -> Result<(), AllocError> {
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
                g = self.shards.lock(si);
                l
            }
        };
        let li = g.lane_index(stream, &self.shards.ranks);
        let lane = &mut g.lanes[li];
        lane.epoch += 1;
        let epoch = lane.epoch;
        lane.free.free_quick(block.ptr, Range { size: live.size, chunk: live.chunk, epoch });
        Ok(())
    }

    fn report(&self) -> AllocReport {
        let mut r = AllocReport::default();
        for g in self.shards.lock_all() {
            r.used += g.used;
            r.peak_used += g.peak_used;
            r.live_blocks += g.live.len();
        }
        r.reserved = self.reserved.load(Ordering::Relaxed);
        r.peak_reserved = self.peak_reserved.load(Ordering::Relaxed);
        r
    }

    fn reset_peaks(&self) {
        for mut g in self.shards.lock_all() {
            g.peak_used = g.used;
        }
        self.peak_reserved.store(self.reserved.load(Ordering::Relaxed), Ordering::Relaxed);
    }

    fn trim(&self, keep_bytes: usize) -> Result<(), AllocError> {
        self.release_free(keep_bytes)
    }
}

impl Strategy for Pool {
    fn inserted_waits(&self) -> u64 {
        self.shards.waits()
    }
    fn wait_log(&self) -> Vec<(u64, u64)> {
        self.shards.wait_log()
    }
    fn free_space(&self) -> FreeSpace {
        let mut f = FreeSpace::default();
        for g in self.shards.lock_all() {
            for l in &g.lanes {
                for r in l.free.by_addr.values().chain(l.free.quick.iter().map(|(_, r)| r)) {
                    f.free_bytes += r.size;
                    f.largest_free = f.largest_free.max(r.size);
                }
            }
        }
        f
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let _ = self.release_free(0);
    }
}
