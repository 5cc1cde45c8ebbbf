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

pub(crate) struct Memory {
    /// `ALIGN` bytes more than the capacity, so that simulated address `BASE` can sit at a host
    /// address aligned to `ALIGN` (`pad` bytes in): kernels view blocks as `f64` slices.
    heap: Vec<u8>,
    pad: usize,
    bytes: usize,
    free: BTreeMap<u64, u64>,
    live: BTreeMap<u64, u64>,
    report: AllocReport,
}

impl Memory {
    pub(crate) fn new(bytes: usize) -> Self {
        let mut free = BTreeMap::new();
        free.insert(BASE, bytes as u64);
        let heap = vec![0; bytes + ALIGN as usize];
        let pad = heap.as_ptr().align_offset(ALIGN as usize).min(ALIGN as usize);
        Self { heap, pad, bytes, free, live: BTreeMap::new(), report: AllocReport::default() }
    }

    pub(crate) fn capacity(&self) -> usize {
        self.bytes
    }

    fn offset(&self, addr: u64, len: usize) -> Option<usize> {
        let off = usize::try_from(addr.checked_sub(BASE)?).ok()?;
        (off.checked_add(len)? <= self.bytes).then_some(off + self.pad)
    }

    /// Host range of the simulated range `addr .. addr + len`, as a kernel argument; a range
    /// outside the memory becomes an empty one (which a kernel's bounds-checked views refuse).
    pub(crate) fn host_range(&mut self, addr: u64, len: u64) -> RawArg {
        match usize::try_from(len).ok().and_then(|n| self.offset(addr, n)) {
            Some(off) => RawArg::Ptr(self.heap.as_mut_ptr() as u64 + off as u64, len),
            None => RawArg::Ptr(0, 0),
        }
    }

    pub(crate) fn read(&self, addr: u64, len: usize) -> Vec<u8> {
        self.offset(addr, len).map_or_else(Vec::new, |o| self.heap[o..o + len].to_vec())
    }

    pub(crate) fn write(&mut self, addr: u64, data: &[u8]) {
        if let Some(o) = self.offset(addr, data.len()) {
            self.heap[o..o + data.len()].copy_from_slice(data);
        }
    }

    pub(crate) fn poison(&mut self, addr: u64, len: u64) {
        if let Some(o) = self.offset(addr, len as usize) {
            self.heap[o..o + len as usize].fill(0xFF);
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
