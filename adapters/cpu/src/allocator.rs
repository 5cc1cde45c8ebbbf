//! Aligned host memory behind the `Allocator` port.

use std::alloc::{alloc, dealloc, Layout};

use tenor_ports::{AllocError, AllocReport, Allocator, Block, Ledger, Stream};

/// Alignment of every block: one cache line, and enough for any vector load.
pub const ALIGN: usize = 64;

/// Host memory from the global allocator, 64-byte aligned. Frees at once: CPU streams run their
/// work at enqueue time, so a free in stream order is a free now.
#[derive(Debug, Default)]
pub struct HostAllocator {
    ledger: Ledger<()>,
}

impl HostAllocator {
    /// An empty allocator.
    pub fn new() -> Self {
        Self::default()
    }
}

// SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out

// once until freed, as the trait's contract asks.

unsafe impl Allocator for HostAllocator {
    fn name(&self) -> &str {
        "host"
    }

    fn allocate(&self, bytes: usize, _stream: &Stream) -> Result<Block, AllocError> {
        let size = bytes.max(1);
        let layout = Layout::from_size_align(size, ALIGN)
            .map_err(|e| AllocError::InvalidSize { bytes, reason: e.to_string() })?;
        // SAFETY: layout has non-zero size.
        let p = unsafe { alloc(layout) };
        if p.is_null() {
            return Err(AllocError::OutOfMemory { requested: bytes, available: 0 });
        }
        let block = Block::new(p as usize as u64, size);
        self.ledger.insert(block, ());
        Ok(block)
    }

    unsafe fn deallocate(&self, block: Block, _stream: &Stream) -> Result<(), AllocError> {
        let ((), size) = self.ledger.remove(block)?;
        let layout = Layout::from_size_align(size, ALIGN)
            .map_err(|e| AllocError::InvalidSize { bytes: size, reason: e.to_string() })?;
        // SAFETY: the block was allocated here with this layout and is removed from `live`.
        unsafe { dealloc(block.ptr as usize as *mut u8, layout) };
        Ok(())
    }

    fn report(&self) -> AllocReport {
        self.ledger.report()
    }

    fn reset_peaks(&self) {
        self.ledger.reset_peaks();
    }
}

impl Drop for HostAllocator {
    fn drop(&mut self) {
        for (ptr, (), size) in self.ledger.drain() {
            if let Ok(layout) = Layout::from_size_align(size, ALIGN) {
                // SAFETY: still-live blocks are released with the allocator that owns them.
                unsafe { dealloc(ptr as usize as *mut u8, layout) };
            }
        }
    }
}
