//! # tenor-cuda: the CUDA backend
//!
//! [`CudaDriver`] implements [`tenor_ports::Driver`] on NVIDIA's driver API through `cudarc`
//! (dynamic loading: nothing links against CUDA at build time), and [`CudaCompute`] is the
//! tracked [`tenor_ports::Device`] over it:
//!
//! * streams are non-blocking `CUstream`s, events `CUevent`s ([`stream`]);
//! * kernels are `kernels/<name>/cuda.cu`, prefixed by `kernels/common/prelude.cuh`,
//!   compiled by NVRTC for the device's architecture and cached on disk ([`nvrtc`]);
//! * uploads are `cuMemcpyHtoDAsync`, downloads go through pinned staging buffers;
//! * `gemm` is cuBLAS `cublasSgemm`/`cublasDgemm` on the tracked stream;
//! * allocators: Tenor's own pool by default, the device's default pool on request, explicit
//!   (IPC-capable) pools, and `cuMemAlloc`
//!   for GPUDirect RDMA ([`alloc`]).
//!
//! Before touching any CUDA library, [`probe`] checks that the driver and NVRTC (cuBLAS at the first gemm) can
//! be loaded and a device exists, so a machine without them gets
//! [`tenor_ports::ComputeError::Unavailable`] with the reason, never cudarc's panic.

pub mod alloc;
pub mod context;
mod driver;
pub mod error;
pub mod multi;
pub mod nvrtc;
mod open_trace;
pub mod probe;
mod staging;
pub mod stream;

use std::sync::Arc;

pub use context::Context;
pub use driver::{CudaDriver, CudaKernel};
pub use multi::{can_access_peer, cuda_on, device_count};
pub use open_trace::TRACE_OPEN_ENV;
pub use probe::probe;
pub use stream::{cuda_stream, CudaEvent, CudaStream};
use tenor_ports::{Allocator, ComputeError, Device};

/// The CUDA [`tenor_ports::Compute`]: [`Device`] over [`CudaDriver`].
pub type CudaCompute = Device<CudaDriver>;

/// Opens CUDA device 0 with a pool of Tenor's own as allocator, leaving the device's shared
/// default pool untouched (or that pool with `TENOR_CUDA_POOL=device`; see
/// [`alloc::PoolChoice::from_env`] and [`CudaDriver::new`]).
///
/// # Errors
/// [`ComputeError::Unavailable`] with the reason when CUDA cannot run here.
pub fn cuda() -> Result<CudaCompute, ComputeError> {
    Device::new(CudaDriver::new(0)?)
}

/// Opens CUDA device `ordinal` with buffers from `make(context)` (an explicit pool, the
/// `cuMemAlloc` allocator, or a toolkit strategy over one of them).
///
/// # Errors
/// As [`cuda`], plus the allocator's construction errors.
pub fn cuda_with_allocator(
    ordinal: i32,
    make: impl FnOnce(&Arc<Context>) -> Result<Arc<dyn Allocator>, ComputeError>,
) -> Result<CudaCompute, ComputeError> {
    let ctx = Context::open(ordinal)?;
    let alloc = make(&ctx)?;
    Device::with_allocator(CudaDriver::with_allocator(ctx, alloc.clone())?, alloc)
}
