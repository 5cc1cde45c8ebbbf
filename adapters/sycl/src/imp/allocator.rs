//! USM device memory behind the `Allocator` port.
//!
//! Where the device has `aspect::ext_oneapi_async_memory_alloc` (the oneAPI
//! `sycl_ext_oneapi_async_alloc` extension: Level Zero and CUDA devices of recent DPC++; not
//! the OpenCL CPU device), allocation and free are enqueued on the stream
//! (`async_malloc`/`async_free`) and come from the runtime's pool. Elsewhere blocks come from
//! `malloc_device`, and a free is stream-ordered by the shim: it records a barrier on the
//! stream and releases the memory once the barrier completes, so work enqueued before the free
//! never sees the memory reused. A pooling strategy from the allocation toolkit can wrap this
//! allocator (`Device::with_allocator`).

use tenor_ports::{AllocError, AllocReport, Allocator, Block, Ledger, Stream};

use super::driver::SyclStream;
use super::handle::Usm;

/// Stream-ordered USM device allocator.
#[derive(Debug)]
pub struct UsmAllocator {
    is_async: bool,
    ledger: Ledger<Usm>,
}

fn queue_of(stream: &Stream) -> Result<&SyclStream, AllocError> {
    stream.downcast::<SyclStream>().ok_or_else(|| AllocError::Stream(format!("{stream:?} is not a SYCL stream")))
}

fn backend(e: tenor_ports::ComputeError) -> AllocError {
    match e {
        tenor_ports::ComputeError::Alloc(a) => a,
        other => AllocError::Backend { backend: "sycl".into(), code: -1, message: other.to_string() },
    }
}

impl UsmAllocator {
    /// An allocator using the asynchronous extension when `is_async` (the device supports it).
    pub fn new(is_async: bool) -> Self {
        Self { is_async, ledger: Ledger::new() }
    }

    /// Whether allocations use `sycl_ext_oneapi_async_alloc`.
    pub fn is_async(&self) -> bool {
        self.is_async
    }
}

// SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out

// once until freed, as the trait's contract asks.

unsafe impl Allocator for UsmAllocator {
    fn name(&self) -> &str {
        if self.is_async {
            "sycl-usm-async"
        } else {
            "sycl-usm"
        }
    }

    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError> {
        let q = queue_of(stream)?;
        let size = bytes.max(1);
        let usm = q.queue().alloc(size, self.is_async).map_err(|e| match backend(e) {
            AllocError::Backend { code, .. } if code == i64::from(super::ffi::TSY_ERR_OUT_OF_MEMORY) => {
                AllocError::OutOfMemory { requested: bytes, available: 0 }
            }
            other => other,
        })?;
        let block = Block::new(usm.address(), size);
        self.ledger.insert(block, usm);
        Ok(block)
    }

    unsafe fn deallocate(&self, block: Block, stream: &Stream) -> Result<(), AllocError> {
        let q = queue_of(stream)?;
        let (usm, _) = self.ledger.remove(block)?;
        q.queue().free(usm).map_err(backend)
    }

    fn report(&self) -> AllocReport {
        self.ledger.report()
    }

    fn reset_peaks(&self) {
        self.ledger.reset_peaks();
    }
}
