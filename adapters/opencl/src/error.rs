//! OpenCL status codes as Tenor errors.

use opencl3::error_codes::ClError;
use tenor_ports::{AllocError, ComputeError};

/// The backend name in errors.
pub(crate) const BACKEND: &str = "opencl";

/// An OpenCL call that failed, as [`ComputeError::Backend`] with the status code and its name
/// (`CL_OUT_OF_RESOURCES`) after `what` was attempted.
pub(crate) fn backend(what: &str, e: ClError) -> ComputeError {
    ComputeError::Backend { backend: BACKEND.into(), code: i64::from(e.0), message: format!("{what}: {e}") }
}

/// [`ComputeError::Unavailable`] with `reason`.
pub(crate) fn unavailable(reason: String) -> ComputeError {
    ComputeError::Unavailable { backend: BACKEND.into(), reason }
}

/// An allocation error from an OpenCL call.
pub(crate) fn alloc(what: &str, e: ClError) -> AllocError {
    AllocError::Backend { backend: BACKEND.into(), code: i64::from(e.0), message: format!("{what}: {e}") }
}
