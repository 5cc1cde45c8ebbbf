//! A cheap upstream for benchmarks: hands out fresh addresses from a counter and only counts.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use tenor_ports::allocator::align_up;
use tenor_ports::{AllocError, AllocReport, Allocator, Block, Stream};

/// An upstream that owns no memory: each allocation gets the next 256-byte-aligned address of
/// a private address space, and frees are only counted. For measuring a strategy's own cost
/// (its upstream calls cost two atomic adds).
#[derive(Debug)]
pub struct Counting {
    next: AtomicU64,
    allocs: AtomicU64,
    frees: AtomicU64,
    used: AtomicUsize,
}

impl Default for Counting {
    fn default() -> Self {
        Self {
            next: AtomicU64::new(0x1000_0000_0000),
            allocs: AtomicU64::new(0),
            frees: AtomicU64::new(0),
            used: AtomicUsize::new(0),
        }
    }
}

impl Counting {
    /// A fresh counting upstream.
    pub fn new() -> Self {
        Self::default()
    }
    /// (allocations, frees) so far.
    pub fn calls(&self) -> (u64, u64) {
        (self.allocs.load(Ordering::Relaxed), self.frees.load(Ordering::Relaxed))
    }
}

// SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out

// once until freed, as the trait's contract asks.

unsafe impl Allocator for Counting {
    fn name(&self) -> &str {
        "counting"
    }
    fn allocate(&self, bytes: usize, _stream: &Stream) -> Result<Block, AllocError> {
        let size = align_up(bytes.max(1), 256);
        let ptr = self.next.fetch_add(size as u64, Ordering::Relaxed);
        self.allocs.fetch_add(1, Ordering::Relaxed);
        self.used.fetch_add(size, Ordering::Relaxed);
        Ok(crate::ids::block(ptr, size))
    }
    unsafe fn deallocate(&self, block: Block, _stream: &Stream) -> Result<(), AllocError> {
        self.frees.fetch_add(1, Ordering::Relaxed);
        self.used.fetch_sub(block.size, Ordering::Relaxed);
        Ok(())
    }
    fn report(&self) -> AllocReport {
        let used = self.used.load(Ordering::Relaxed);
        AllocReport { used, reserved: used, ..AllocReport::default() }
    }
}
