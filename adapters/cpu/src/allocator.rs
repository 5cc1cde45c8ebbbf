//! Aligned host memory behind the `Allocator` port.

use std::alloc::{alloc, dealloc, Layout};
use std::collections::HashMap;
use std::sync::Mutex;

use tenor_core::{AllocError, AllocReport, Allocator, Block, Stream};

/// Alignment of every block: one cache line, and enough for any vector load.
pub const ALIGN: usize = 64;

/// Host memory from the global allocator, 64-byte aligned. Frees at once: CPU streams run their
/// work at enqueue time, so a free in stream order is a free now.
#[derive(Debug, Default)]
pub struct HostAllocator {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    live: HashMap<u64, usize>,
    report: AllocReport,
}

impl HostAllocator {
    /// An empty allocator.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Allocator for HostAllocator {
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
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.live.insert(block.ptr, size);
        let r = &mut st.report;
        r.used += size;
        r.reserved += size;
        r.live_blocks += 1;
        r.peak_used = r.peak_used.max(r.used);
        r.peak_reserved = r.peak_reserved.max(r.reserved);
        Ok(block)
    }

    fn deallocate(&self, block: Block, _stream: &Stream) -> Result<(), AllocError> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let size = st.live.remove(&block.ptr).ok_or(AllocError::UnknownBlock { ptr: block.ptr, size: block.size })?;
        let r = &mut st.report;
        r.used -= size;
        r.reserved -= size;
        r.live_blocks -= 1;
        drop(st);
        let layout = Layout::from_size_align(size, ALIGN)
            .map_err(|e| AllocError::InvalidSize { bytes: size, reason: e.to_string() })?;
        // SAFETY: the block was allocated here with this layout and is removed from `live`.
        unsafe { dealloc(block.ptr as usize as *mut u8, layout) };
        Ok(())
    }

    fn report(&self) -> AllocReport {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).report
    }

    fn reset_peaks(&self) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.report.peak_used = st.report.used;
        st.report.peak_reserved = st.report.reserved;
    }
}

impl Drop for HostAllocator {
    fn drop(&mut self) {
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        for (&ptr, &size) in &st.live {
            if let Ok(layout) = Layout::from_size_align(size, ALIGN) {
                // SAFETY: still-live blocks are released with the allocator that owns them.
                unsafe { dealloc(ptr as usize as *mut u8, layout) };
            }
        }
    }
}
