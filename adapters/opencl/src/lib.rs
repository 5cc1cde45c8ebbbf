//! # tenor-opencl: the OpenCL backend
//!
//! [`OpenClDriver`] implements `tenor_ports::Driver` on OpenCL through the `opencl3` crate, and
//! [`tenor_ports::Device`] adds hazard tracking, argument checks, the kernel cache and sticky
//! errors, as for every backend.
//!
//! - **Loading.** The OpenCL library (an ICD loader, `libOpenCL.so.1`) is opened at run time
//!   (`opencl3`'s `dynamic` feature; `OPENCL_DYLIB_PATH` names another file), so a machine
//!   without one gets [`tenor_ports::ComputeError::Unavailable`] with the reason, never a link
//!   error or a panic. Which implementation the loader offers is the loader's business
//!   (`/etc/OpenCL/vendors`, or `OCL_ICD_FILENAMES` naming the implementation's library).
//! - **Streams** are in-order command queues of one context; **events** are markers
//!   (`clEnqueueMarkerWithWaitList`); a cross-stream wait is a barrier with that marker in its
//!   wait list.
//! - **Memory** is coarse-grained buffer SVM (`clSVMAlloc`): a device address is the SVM
//!   pointer itself, so an offset into a buffer is plain arithmetic, kernels take it with
//!   `clSetKernelArgSVMPointer`, copies are `clEnqueueSVMMemcpy`, and a free is
//!   `clEnqueueSVMFree` on the freeing stream, ordered after its earlier work
//!   (docs/adr/0017-opencl-adapter.md). A device without SVM is reported unavailable.
//! - **Kernels** are `kernels/<name>/opencl.cl`, built at run time with `clBuildProgram` after
//!   the OpenCL prelude (`kernels/common/prelude.cl`) and the device code shared with CUDA and
//!   SYCL (`kernels/common/shared.h`), cached per device and source ([`kernels`]). One
//!   work-group covers one launch block of the manifest.
//! - **gemm** is our own register-tiled OpenCL C kernel (as the SYCL adapter's, ADR 0004).
//!
//! Devices: `default`, `cpu`, `gpu`, `index:N` (over every platform's devices in order) or a
//! case-insensitive part of the device or platform name; the `opencl` backend of
//! `tenor-registry` reads `TENOR_OPENCL_DEVICE` (default `default`). Sources: Khronos OpenCL
//! 3.0 API and OpenCL C specifications.

pub mod allocator;
pub mod driver;
mod error;
pub mod kernels;
pub mod platform;

use tenor_ports::{ComputeError, Device};

pub use allocator::SvmAllocator;
pub use driver::{OpenClDriver, OpenClEvent, OpenClStream};
pub use platform::{device_names, DeviceChoice};

/// An OpenCL [`tenor_ports::Compute`]: [`Device`] over [`OpenClDriver`].
pub type OpenClCompute = Device<OpenClDriver>;

/// Environment variable naming the device for [`opencl_from_env`].
pub const DEVICE_ENV: &str = "TENOR_OPENCL_DEVICE";

/// Opens the OpenCL device `selector` names: `default`, `cpu`, `gpu`, `index:N`, or a
/// case-insensitive part of the device or platform name.
///
/// # Errors
/// [`ComputeError::Unavailable`] when the OpenCL library cannot be loaded (with the loader's
/// message), when no device matches (naming the visible ones), or when the device lacks fp64
/// or coarse-grained SVM.
pub fn opencl(selector: &str) -> Result<OpenClCompute, ComputeError> {
    Device::new(OpenClDriver::open(selector)?)
}

/// Opens the device named by `TENOR_OPENCL_DEVICE` (default: `default`, the first GPU, else
/// the first device).
///
/// # Errors
/// As [`opencl`].
pub fn opencl_from_env() -> Result<OpenClCompute, ComputeError> {
    let sel = std::env::var(DEVICE_ENV).unwrap_or_else(|_| "default".into());
    opencl(&sel)
}
