//! `cuMemAlloc` / `cuMemFree`: the baseline allocator, and GPUDirect RDMA buffers.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cudarc::driver::sys;
use tenor_ports::{AllocError, AllocReport, Allocator, Block, ComputeError, Stream};

use super::pool::raw_stream;
use crate::context::Context;
use crate::error::{check, check_alloc};

/// One `cuMemAlloc` per block and `cuMemFree` after the freeing stream synchronised: no
/// caching, no pool. `cuMemAlloc`/`cuMemFree` synchronise with the device, which is what
/// the pools avoid; this is the baseline the benchmarks compare them with.
#[derive(Debug)]
pub struct PlainAllocator {
    ctx: Arc<Context>,
    used: AtomicUsize,
    peak: AtomicUsize,
    live: AtomicUsize,
}

impl PlainAllocator {
    /// An allocator on `ctx`'s device.
    pub fn new(ctx: Arc<Context>) -> Self {
        Self { ctx, used: AtomicUsize::new(0), peak: AtomicUsize::new(0), live: AtomicUsize::new(0) }
    }

    /// A buffer for GPUDirect RDMA: `cuMemAlloc` memory with `CU_POINTER_ATTRIBUTE_SYNC_MEMOPS`
    /// set (NVIDIA, "Developing a Linux Kernel Module using GPUDirect RDMA", 3.1: synchronous
    /// memory operations on memory a third-party device reads or writes). It is its own type,
    /// not a [`Block`], so no pool or toolkit strategy can ever cache or hand it out again.
    ///
    /// # Errors
    /// [`ComputeError::Alloc`] when the device is out of memory; driver errors.
    pub fn rdma_buffer(&self, bytes: usize) -> Result<RdmaBuffer, ComputeError> {
        let size = bytes.max(1);
        self.ctx.bind()?;
        let mut p = 0u64;
        // SAFETY: valid out-pointer.
        check_alloc("cuMemAlloc", bytes, unsafe { sys::cuMemAlloc_v2(&mut p, size) })?;
        let buf = RdmaBuffer { ptr: p, len: bytes, ctx: self.ctx.clone() };
        let one: u32 = 1;
        // SAFETY: `p` is a live cuMemAlloc allocation; the attribute takes an unsigned int.
        check("cuPointerSetAttribute(SYNC_MEMOPS)", unsafe {
            sys::cuPointerSetAttribute(
                (&one as *const u32).cast(),
                sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
                p,
            )
        })?;
        Ok(buf)
    }
}

// SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out

// once until freed, as the trait's contract asks.

unsafe impl Allocator for PlainAllocator {
    fn name(&self) -> &str {
        "cuda-cumemalloc"
    }

    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError> {
        raw_stream(stream)?;
        let size = bytes.max(1);
        self.ctx.bind().map_err(|e| AllocError::Stream(e.to_string()))?;
        let mut p = 0u64;
        // SAFETY: valid out-pointer.
        check_alloc("cuMemAlloc", bytes, unsafe { sys::cuMemAlloc_v2(&mut p, size) })?;
        let used = self.used.fetch_add(size, Ordering::Relaxed) + size;
        self.peak.fetch_max(used, Ordering::Relaxed);
        self.live.fetch_add(1, Ordering::Relaxed);
        Ok(Block::new(p, size))
    }

    unsafe fn deallocate(&self, block: Block, stream: &Stream) -> Result<(), AllocError> {
        let s = raw_stream(stream)?;
        self.ctx.bind().map_err(|e| AllocError::Stream(e.to_string()))?;
        // Work enqueued on `stream` may still use the block: wait for it, then free.
        // SAFETY: live stream.
        check_alloc("cuStreamSynchronize", 0, unsafe { sys::cuStreamSynchronize(s) })?;
        // SAFETY: `block` came from cuMemAlloc and no work uses it any more.
        check_alloc("cuMemFree", block.size, unsafe { sys::cuMemFree_v2(block.ptr) })?;
        self.used.fetch_sub(block.size, Ordering::Relaxed);
        self.live.fetch_sub(1, Ordering::Relaxed);
        Ok(())
    }

    fn report(&self) -> AllocReport {
        let used = self.used.load(Ordering::Relaxed);
        let peak = self.peak.load(Ordering::Relaxed);
        AllocReport {
            used,
            reserved: used,
            peak_used: peak,
            peak_reserved: peak,
            live_blocks: self.live.load(Ordering::Relaxed),
            ..AllocReport::default()
        }
    }

    fn reset_peaks(&self) {
        self.peak.store(self.used.load(Ordering::Relaxed), Ordering::Relaxed);
    }
}

/// Device memory for GPUDirect RDMA (a NIC writing market data straight into the GPU):
/// `cuMemAlloc`ed, synchronous memory operations on, freed with `cuMemFree` on drop, and never
/// part of any pool. Made by [`PlainAllocator::rdma_buffer`].
#[derive(Debug)]
pub struct RdmaBuffer {
    ptr: u64,
    len: usize,
    ctx: Arc<Context>,
}

impl RdmaBuffer {
    /// Device address (what an RDMA driver registers).
    pub fn ptr(&self) -> u64 {
        self.ptr
    }
    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the buffer has zero bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Whether the driver reports synchronous memory operations on for this buffer.
    ///
    /// # Errors
    /// Driver errors.
    pub fn sync_memops(&self) -> Result<bool, ComputeError> {
        self.ctx.bind()?;
        let mut v: u32 = 0;
        // SAFETY: the attribute is an unsigned int.
        check("cuPointerGetAttribute(SYNC_MEMOPS)", unsafe {
            sys::cuPointerGetAttribute(
                (&mut v as *mut u32).cast(),
                sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
                self.ptr,
            )
        })?;
        Ok(v != 0)
    }
    /// Whether the buffer's memory belongs to a stream-ordered pool
    /// (`CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE` is null for `cuMemAlloc` memory).
    ///
    /// # Errors
    /// Driver errors.
    pub fn in_pool(&self) -> Result<bool, ComputeError> {
        self.ctx.bind()?;
        let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
        // SAFETY: the attribute is a CUmemoryPool handle.
        check("cuPointerGetAttribute(MEMPOOL_HANDLE)", unsafe {
            sys::cuPointerGetAttribute(
                (&mut pool as *mut sys::CUmemoryPool).cast(),
                sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
                self.ptr,
            )
        })?;
        Ok(!pool.is_null())
    }
}

impl Drop for RdmaBuffer {
    fn drop(&mut self) {
        if self.ctx.bind().is_ok() {
            // SAFETY: allocated with cuMemAlloc, freed once; cuMemFree waits for work using it.
            let _ = unsafe { sys::cuMemFree_v2(self.ptr) };
        }
    }
}
