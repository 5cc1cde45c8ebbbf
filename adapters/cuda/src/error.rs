//! Conversions of CUDA driver, NVRTC and cuBLAS status codes into the ports' typed errors.

use cudarc::driver::{result::DriverError, sys};
use tenor_ports::{AllocError, ComputeError};

/// Backend name used in every error and report.
pub const BACKEND: &str = "cuda";

/// Name and description of a driver error (`cuGetErrorName`, `cuGetErrorString`).
pub fn describe(e: DriverError) -> String {
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
    let text = e.error_string().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    format!("{name} ({text})")
}

/// A driver error during `what`, as [`ComputeError::Backend`].
pub fn drv(what: &str, e: DriverError) -> ComputeError {
    ComputeError::Backend { backend: BACKEND.into(), code: e.0 as i64, message: format!("{what}: {}", describe(e)) }
}

/// A driver error during `what`, as [`AllocError::Backend`]; out-of-memory becomes
/// [`AllocError::OutOfMemory`] with the device's free bytes (`cuMemGetInfo`).
pub fn alloc_err(what: &str, requested: usize, e: DriverError) -> AllocError {
    if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        let available = cudarc::driver::result::mem_get_info().map(|(free, _)| free).unwrap_or(0);
        return AllocError::OutOfMemory { requested, available };
    }
    AllocError::Backend { backend: BACKEND.into(), code: e.0 as i64, message: format!("{what}: {}", describe(e)) }
}

/// Turns a raw `CUresult` into a `Result` with [`drv`].
pub fn check(what: &str, r: sys::CUresult) -> Result<(), ComputeError> {
    r.result().map_err(|e| drv(what, e))
}

/// Turns a raw `CUresult` into a `Result` with [`alloc_err`].
pub fn check_alloc(what: &str, requested: usize, r: sys::CUresult) -> Result<(), AllocError> {
    r.result().map_err(|e| alloc_err(what, requested, e))
}
