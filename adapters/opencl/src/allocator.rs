//! Coarse-grained buffer SVM behind the `Allocator` port.
//!
//! A block's device address is the pointer `clSVMAlloc` returned (docs/adr/0017): kernels take
//! `base + offset` directly (`clSetKernelArgSVMPointer` accepts any address inside an SVM
//! allocation), so the pool of the allocation toolkit can hand out sub-blocks of one SVM slab.
//! Allocation is immediate; a free is `clEnqueueSVMFree` on the freeing stream, which the
//! runtime executes after the stream's earlier work, so the port's rule 2 (a free is ordered
//! after all work enqueued on the stream before it) holds without a host wait.

use std::ffi::c_void;
use std::sync::Arc;

use opencl3::memory::CL_MEM_READ_WRITE;
use tenor_ports::{AllocError, AllocReport, Allocator, Block, Ledger, Stream};

use crate::driver::{Ctx, OpenClStream};
use crate::error::alloc;

/// An SVM allocation (the pointer is only ever handed to OpenCL calls).
#[derive(Debug)]
struct SvmPtr(*mut c_void);
// SAFETY: the pointer is an opaque SVM handle; OpenCL SVM calls may be made from any thread.
unsafe impl Send for SvmPtr {}
// SAFETY: as above; it is never dereferenced on the host.
unsafe impl Sync for SvmPtr {}

/// Stream-ordered coarse-grained SVM allocator of one OpenCL context.
#[derive(Debug)]
pub struct SvmAllocator {
    ctx: Arc<Ctx>,
    ledger: Ledger<SvmPtr>,
}

fn queue_of(stream: &Stream) -> Result<&OpenClStream, AllocError> {
    stream.downcast::<OpenClStream>().ok_or_else(|| AllocError::Stream(format!("{stream:?} is not an OpenCL stream")))
}

impl SvmAllocator {
    pub(crate) fn new(ctx: Arc<Ctx>) -> Self {
        Self { ctx, ledger: Ledger::new() }
    }
}

// SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out

// once until freed, as the trait's contract asks.

unsafe impl Allocator for SvmAllocator {
    fn name(&self) -> &str {
        "opencl-svm"
    }

    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError> {
        let s = queue_of(stream)?;
        if s.ctx().raw() != self.ctx.raw() {
            return Err(AllocError::Stream(format!("{stream:?} belongs to another OpenCL context")));
        }
        let size = bytes.max(1);
        // SAFETY: the context is alive (held by self.ctx); alignment 0 asks for the default
        // (the largest OpenCL C data type). clSVMAlloc answers a null pointer without a code
        // when it fails: out of memory, or larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE.
        let ptr = unsafe { cl3::memory::svm_alloc(self.ctx.raw(), CL_MEM_READ_WRITE, size, 0) }
            .map_err(|_| AllocError::OutOfMemory { requested: bytes, available: self.ctx.max_alloc() })?;
        let block = Block::new(ptr as u64, size);
        self.ledger.insert(block, SvmPtr(ptr));
        Ok(block)
    }

    unsafe fn deallocate(&self, block: Block, stream: &Stream) -> Result<(), AllocError> {
        let s = queue_of(stream)?;
        let (ptr, _) = self.ledger.remove(block)?;
        // SAFETY: ptr came from clSVMAlloc on this context and leaves the ledger here, so it is
        // freed once; the free runs after the stream's earlier work (in-order queue).
        unsafe { s.queue().enqueue_svm_free(&[ptr.0.cast_const()], None, std::ptr::null_mut(), &[]) }
            .map(drop)
            .map_err(|e| alloc("clEnqueueSVMFree", e))
    }

    fn report(&self) -> AllocReport {
        self.ledger.report()
    }

    fn reset_peaks(&self) {
        self.ledger.reset_peaks();
    }
}
