//! A hard cap over any allocator (RMM's `limiting_resource_adaptor`, CuPy's `set_limit`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tenor_ports::{AllocError, AllocReport, Allocator, Block, Stream};

/// Refuses allocations that would take the bytes handed out (block sizes) above `cap`, with
/// [`AllocError::OutOfMemory`] carrying the requested and the still-available bytes.
#[derive(Debug)]
pub struct Limit {
    inner: Arc<dyn Allocator>,
    cap: usize,
    used: AtomicUsize,
}

impl Limit {
    /// A cap of `cap` bytes over `inner`.
    pub fn new(inner: Arc<dyn Allocator>, cap: usize) -> Self {
        Self { inner, cap, used: AtomicUsize::new(0) }
    }
    /// Bytes still available under the cap.
    pub fn available(&self) -> usize {
        self.cap.saturating_sub(self.used.load(Ordering::Relaxed))
    }
    fn out_of_memory(&self, requested: usize) -> AllocError {
        AllocError::OutOfMemory { requested, available: self.available() }
    }
}

// SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out

// once until freed, as the trait's contract asks.

unsafe impl Allocator for Limit {
    fn name(&self) -> &str {
        "limit"
    }

    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError> {
        if bytes > self.available() {
            return Err(self.out_of_memory(bytes));
        }
        let b = self.inner.allocate(bytes, stream)?;
        let charged = self
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Relaxed, |u| u.checked_add(b.size).filter(|&n| n <= self.cap));
        if charged.is_err() {
            // SAFETY: `b` was allocated from `inner` just above and never left this function.
            unsafe { self.inner.deallocate(b, stream) }?;
            return Err(self.out_of_memory(bytes));
        }
        Ok(b)
    }

    unsafe fn deallocate(&self, block: Block, stream: &Stream) -> Result<(), AllocError> {
        // SAFETY: this method's contract (the caller owns `block`), passed on unchanged.
        unsafe { self.inner.deallocate(block, stream) }?;
        let _ = self.used.fetch_update(Ordering::AcqRel, Ordering::Relaxed, |u| Some(u.saturating_sub(block.size)));
        Ok(())
    }

    fn report(&self) -> AllocReport {
        self.inner.report()
    }
    fn reset_peaks(&self) {
        self.inner.reset_peaks();
    }
    fn trim(&self, keep_bytes: usize) -> Result<(), AllocError> {
        self.inner.trim(keep_bytes)
    }
}
