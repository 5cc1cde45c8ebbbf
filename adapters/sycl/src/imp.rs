//! The adapter (built with the `runtime` feature).

pub mod allocator;
pub mod driver;
mod ffi;
pub mod handle;
pub mod kernels;

use tenor_ports::{ComputeError, Device};

pub use allocator::UsmAllocator;
pub use driver::{SyclDriver, SyclEvent, SyclStream};
pub use handle::device_names;

/// A SYCL [`tenor_ports::Compute`]: [`Device`] over [`SyclDriver`].
pub type SyclCompute = Device<SyclDriver>;

/// Environment variable naming the device for [`sycl_from_env`].
pub const DEVICE_ENV: &str = "TENOR_SYCL_DEVICE";

/// Opens the SYCL device `selector` names: `cpu`, `gpu`, `default`, `index:N`, or a
/// case-insensitive part of the device name.
///
/// # Errors
/// [`ComputeError::Unavailable`] naming the visible devices when none matches, or when the
/// device cannot compile SYCL source at run time.
pub fn sycl(selector: &str) -> Result<SyclCompute, ComputeError> {
    Device::new(SyclDriver::open(selector)?)
}

/// Opens the device named by `TENOR_SYCL_DEVICE` (default: the runtime's default device).
///
/// # Errors
/// As [`sycl`].
pub fn sycl_from_env() -> Result<SyclCompute, ComputeError> {
    let sel = std::env::var(DEVICE_ENV).unwrap_or_else(|_| "default".into());
    sycl(&sel)
}
