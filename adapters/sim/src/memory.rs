//! Simulated device memory and its first-fit allocator.

use std::collections::BTreeMap;
use std::sync::Arc;

use tenor_ports::{AllocError, AllocReport, Allocator, Block, RawArg, Stream};

use crate::sched::Op;
use crate::Shared;

/// First simulated device address (so that no block sits at address 0).
pub(crate) const BASE: u64 = 0x7e00_0000_0000;
/// Alignment of simulated blocks.
pub(crate) const ALIGN: u64 = 256;

/// One aligned line of backing store: kernels view blocks as `f64` slices at host addresses
/// aligned like the simulated ones.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(256))]
struct Line([u8; ALIGN as usize]);

/// The simulated memory. Its size is a limit, not an allocation: the host backs it from `BASE`
/// up only as far as work has read or written data (uploads, downloads, kernels), growing when
/// work reaches further, so a replay (allocations, touches and frees, no data) of a device of
/// any size costs the host nothing, and a backing the host cannot give becomes an error of the
/// work that needed it (reported at the next synchronisation), never an abort.
pub(crate) struct Memory {
    /// Backs the simulated bytes `BASE .. BASE + heap.len() * ALIGN`.
    heap: Vec<Line>,
    bytes: usize,
    free: BTreeMap<u64, u64>,
    live: BTreeMap<u64, u64>,
    report: AllocReport,
    /// End (offset from `BASE`) of the highest block ever allocated: newly backed bytes below it
    /// that are free now were freed before they were backed, and read as poison.
    ever: u64,
    /// Bytes the host could not back, taken by the scheduler as an error.
    unbacked: Option<usize>,
}

impl Memory {
    pub(crate) fn new(bytes: usize) -> Self {
        let mut free = BTreeMap::new();
        free.insert(BASE, bytes as u64);
        Self {
            heap: Vec::new(),
            bytes,
            free,
            live: BTreeMap::new(),
            report: AllocReport::default(),
            ever: 0,
            unbacked: None,
        }
    }

    pub(crate) fn capacity(&self) -> usize {
        self.bytes
    }

    /// Host bytes backing the simulated memory so far.
    fn backed(&self) -> usize {
        self.heap.len() * ALIGN as usize
    }

    /// The offset of `addr .. addr + len` from `BASE`, when it lies inside the memory.
    fn offset(&self, addr: u64, len: usize) -> Option<usize> {
        let off = usize::try_from(addr.checked_sub(BASE)?).ok()?;
        (off.checked_add(len)? <= self.bytes).then_some(off)
    }

    /// Backs the simulated memory up to offset `end` (doubling, within the capacity, so growth
    /// copies each byte a bounded number of times); `false`, with [`Memory::unbacked`] set, when
    /// the host cannot.
    fn back_to(&mut self, end: usize) -> bool {
        if end <= self.backed() {
            return true;
        }
        let need = end.div_ceil(ALIGN as usize);
        let most = self.bytes.div_ceil(ALIGN as usize);
        let lines = need.max(self.heap.len().saturating_mul(2)).min(most);
        let old = self.backed();
        let grown = self
            .heap
            .try_reserve_exact(lines - self.heap.len())
            .map(|()| lines)
            .or_else(|_| self.heap.try_reserve_exact(need - self.heap.len()).map(|()| need));
        let Ok(lines) = grown else {
            self.unbacked = Some(end);
            return false;
        };
        self.heap.resize(lines, Line([0; ALIGN as usize]));
        let (new, ever) = (self.backed() as u64, self.ever);
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut self.heap);
        for (&start, &len) in &self.free {
            let (lo, hi) = ((start - BASE).max(old as u64), (start - BASE + len).min(new).min(ever));
            if lo < hi {
                bytes[lo as usize..hi as usize].fill(0xFF);
            }
        }
        true
    }

    /// Backs the memory as far as the furthest of `ranges` (simulated address, length) that lies
    /// inside it, so that host addresses taken afterwards for each of them stay valid together.
    pub(crate) fn back_ranges(&mut self, ranges: impl Iterator<Item = (u64, u64)>) {
        let end = ranges
            .filter_map(|(addr, len)| {
                let n = usize::try_from(len).ok()?;
                Some(self.offset(addr, n)? + n)
            })
            .max();
        if let Some(end) = end {
            self.back_to(end);
        }
    }

    /// The bytes the host could not back since the last call, if any.
    pub(crate) fn take_unbacked(&mut self) -> Option<usize> {
        self.unbacked.take()
    }

    /// Host range of the simulated range `addr .. addr + len`, as a kernel argument; a range
    /// outside the memory (or one the host cannot back) becomes an empty one (which a kernel's
    /// bounds-checked views refuse). It may grow (move) the backing: a launch backs all its
    /// ranges first ([`Memory::back_ranges`]).
    pub(crate) fn host_range(&mut self, addr: u64, len: u64) -> RawArg {
        match usize::try_from(len).ok().and_then(|n| Some((self.offset(addr, n)?, n))) {
            Some((off, n)) if self.back_to(off + n) => {
                let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut self.heap);
                RawArg::Ptr(bytes.as_mut_ptr() as u64 + off as u64, len)
            }
            _ => RawArg::Ptr(0, 0),
        }
    }

    pub(crate) fn read(&mut self, addr: u64, len: usize) -> Vec<u8> {
        match self.offset(addr, len) {
            Some(o) if self.back_to(o + len) => bytemuck::cast_slice::<Line, u8>(&self.heap)[o..o + len].to_vec(),
            _ => Vec::new(),
        }
    }

    pub(crate) fn write(&mut self, addr: u64, data: &[u8]) {
        if let Some(o) = self.offset(addr, data.len()) {
            if self.back_to(o + data.len()) {
                bytemuck::cast_slice_mut::<Line, u8>(&mut self.heap)[o..o + data.len()].copy_from_slice(data);
            }
        }
    }

    /// Fills a freed block with `0xFF` where it is backed (bytes backed later are poisoned then,
    /// see [`Memory::back_to`]).
    pub(crate) fn poison(&mut self, addr: u64, len: u64) {
        if let Some(o) = self.offset(addr, len as usize) {
            let end = (o + len as usize).min(self.backed());
            if o < end {
                bytemuck::cast_slice_mut::<Line, u8>(&mut self.heap)[o..end].fill(0xFF);
            }
        }
    }

    fn alloc(&mut self, bytes: usize) -> Option<Block> {
        let size = (bytes.max(1) as u64).div_ceil(ALIGN) * ALIGN;
        let (&start, &len) = self.free.iter().find(|(_, &l)| l >= size)?;
        self.free.remove(&start);
        if len > size {
            self.free.insert(start + size, len - size);
        }
        self.live.insert(start, size);
        self.ever = self.ever.max(start + size - BASE);
        let r = &mut self.report;
        r.used += size as usize;
        r.reserved = r.used;
        r.live_blocks += 1;
        r.peak_used = r.peak_used.max(r.used);
        r.peak_reserved = r.peak_used;
        Some(Block::new(start, size as usize))
    }

    fn release(&mut self, ptr: u64) -> Option<u64> {
        let size = self.live.remove(&ptr)?;
        let (mut start, mut len) = (ptr, size);
        if let Some((&s, &l)) = self.free.range(..start).next_back() {
            if s + l == start {
                self.free.remove(&s);
                start = s;
                len += l;
            }
        }
        if let Some(&l) = self.free.get(&(start + len)) {
            self.free.remove(&(start + len));
            len += l;
        }
        self.free.insert(start, len);
        let r = &mut self.report;
        r.used -= size as usize;
        r.reserved = r.used;
        r.live_blocks -= 1;
        Some(size)
    }

    fn largest_free(&self) -> u64 {
        self.free.values().copied().max().unwrap_or(0)
    }
}

/// First-fit allocator over the simulated memory. A free is stream-ordered: the block returns to
/// the free list at once (as CUDA's pool makes it reusable at once on the freeing stream), and a
/// poisoning write is enqueued on the freeing stream, so any later use from another stream that
/// is not ordered after the free is a hazard.
pub struct SimAllocator {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for SimAllocator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SimAllocator")
    }
}

impl SimAllocator {
    pub(crate) fn new(shared: Arc<Shared>, _bytes: usize) -> Self {
        Self { shared }
    }
}

// SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out

// once until freed, as the trait's contract asks.

unsafe impl Allocator for SimAllocator {
    fn name(&self) -> &str {
        "sim-first-fit"
    }

    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError> {
        crate::index_in(&self.shared, stream)
            .ok_or_else(|| AllocError::Stream(format!("{stream:?} is not a stream of this simulated device")))?;
        let mut g = self.shared.lock();
        g.memory
            .alloc(bytes)
            .ok_or_else(|| AllocError::OutOfMemory { requested: bytes, available: g.memory.largest_free() as usize })
    }

    unsafe fn deallocate(&self, block: Block, stream: &Stream) -> Result<(), AllocError> {
        let s = crate::index_in(&self.shared, stream)
            .ok_or_else(|| AllocError::Stream(format!("{stream:?} is not a stream of this simulated device")))?;
        let mut g = self.shared.lock();
        let size = g.memory.release(block.ptr).ok_or(AllocError::UnknownBlock { ptr: block.ptr, size: block.size })?;
        g.enqueue(
            s,
            Op::Free { ptr: block.ptr, len: size },
            vec![(block.ptr, size, tenor_ports::Access::Write)],
            format!("free of block {}", block.id),
        );
        Ok(())
    }

    fn report(&self) -> AllocReport {
        self.shared.lock().memory.report
    }

    fn reset_peaks(&self) {
        let mut g = self.shared.lock();
        g.memory.report.peak_used = g.memory.report.used;
        g.memory.report.peak_reserved = g.memory.report.reserved;
    }
}
