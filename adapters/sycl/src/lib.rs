//! # tenor-sycl: the SYCL backend
//!
//! A C++17 shim (`shim/tenor_sycl.cpp`, built by `build.rs` with g++ against Intel's DPC++
//! runtime) exposes a small C ABI: opaque handles for device, in-order queue, event, USM
//! allocation and kernel bundle, and status codes with messages; every SYCL exception,
//! synchronous or delivered to the queue's asynchronous handler, becomes an error there.
//! [`SyclDriver`] implements `tenor_ports::Driver` on it, and [`tenor_ports::Device`] adds hazard
//! tracking, argument checks, the kernel cache and sticky errors.
//!
//! - Streams are in-order queues; events are barriers recorded on them
//!   (`ext_oneapi_submit_barrier`); a cross-stream wait is a barrier with an event dependency.
//! - Kernels are the `kernels/<name>/sycl.cpp` free functions
//!   (`SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((nd_range_kernel<1>))`), compiled at run time with
//!   `sycl_ext_oneapi_kernel_compiler` and cached per device ([`kernels`]). One work-group covers
//!   one launch block of the manifest, so per-block partial results equal the CPU reference's.
//! - Memory is USM device memory ([`UsmAllocator`]): stream-ordered through
//!   `sycl_ext_oneapi_async_alloc` where the device has the aspect, else `malloc_device` with
//!   a free ordered after the stream's prior work.
//! - gemm is our own register-tiled kernel (docs/adr/0004-sycl-gemm.md).
//!
//! Devices: `cpu`, `gpu`, `default`, `index:N` or part of a device name ([`sycl`]); the
//! `sycl` backend of `tenor-registry` reads `TENOR_SYCL_DEVICE` (default `default`). With the
//! PyPI runtime the shim selects Intel's OpenCL CPU device (`OCL_ICD_FILENAMES`, unless set).
//! Sources: Khronos SYCL 2020 specification; oneAPI DPC++ extension specifications
//! (kernel_compiler, free_function_kernels, enqueue_barrier, async_alloc).

//!
//! The crate's code is built only with its `runtime` feature (what `tenor-registry`' `sycl`
//! feature turns on), so a default workspace build needs no SYCL runtime; with the feature,
//! `build.rs` fails with install instructions when the runtime is missing.

#[cfg(feature = "runtime")]
mod imp;
pub mod unit;
#[cfg(feature = "runtime")]
pub use imp::*;
