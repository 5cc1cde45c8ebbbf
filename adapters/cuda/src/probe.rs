//! Probing: can CUDA run here, and if not, why.
//!
//! cudarc loads the driver, NVRTC and cuBLAS lazily and panics when a library is missing, so
//! every entry point of this crate calls [`probe`] first: it looks for each library with the
//! same names cudarc tries (`is_culib_present`, a plain `dlopen`), then calls `cuInit` and
//! counts the devices. Each failure is a [`ComputeError::Unavailable`] naming the cause.

use std::sync::OnceLock;

use cudarc::driver::result as dr;
use tenor_ports::ComputeError;

use crate::error::{describe, BACKEND};

fn unavailable(reason: String) -> ComputeError {
    ComputeError::Unavailable { backend: BACKEND.into(), reason }
}

/// Whether NVRTC can be loaded (`libnvrtc.so.13` on the library path).
pub fn nvrtc_present() -> bool {
    // SAFETY: only tries `dlopen` on cudarc's candidate names; loads nothing else.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// Checks NVRTC alone (for compiling kernels without a GPU, as CI does).
///
/// # Errors
/// [`ComputeError::Unavailable`] when `libnvrtc` cannot be loaded.
pub fn probe_nvrtc() -> Result<(), ComputeError> {
    if nvrtc_present() {
        Ok(())
    } else {
        Err(unavailable(
            "no NVRTC library (libnvrtc.so.13) on the library path; set LD_LIBRARY_PATH (scripts/install-nvrtc \
             installs one)"
                .into(),
        ))
    }
}

/// Checks the driver library, `cuInit`, at least one device and NVRTC (cuBLAS: [`probe_cublas`],
/// at the first gemm). The result
/// is computed once per process.
///
/// # Errors
/// [`ComputeError::Unavailable`] with the reason: no driver library, `cuInit` failed (no
/// GPU, driver/kernel-module mismatch), no device or no NVRTC.
pub fn probe() -> Result<(), ComputeError> {
    static PROBE: OnceLock<Result<(), ComputeError>> = OnceLock::new();
    PROBE.get_or_init(probe_once).clone()
}

fn probe_once() -> Result<(), ComputeError> {
    // SAFETY: `is_culib_present` only tries to dlopen candidate library names.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(unavailable("no CUDA driver library (libcuda.so.1): no NVIDIA driver installed".into()));
    }
    dr::init().map_err(|e| unavailable(format!("cuInit failed: {} (no usable GPU or driver)", describe(e))))?;
    let n = dr::device::get_count().map_err(|e| unavailable(format!("cuDeviceGetCount: {}", describe(e))))?;
    if n < 1 {
        return Err(unavailable("the driver reports no CUDA device".into()));
    }
    probe_nvrtc()?;
    Ok(())
}

/// Checks that cuBLAS can be loaded; called before the first gemm creates its handle (opening
/// the device does not load cuBLAS: a book never needs it).
///
/// # Errors
/// [`ComputeError::Unavailable`] naming the library and the library path to set.
pub fn probe_cublas() -> Result<(), ComputeError> {
    // SAFETY: `is_culib_present` only tries to dlopen candidate library names.
    if !unsafe { cudarc::cublas::sys::is_culib_present() } {
        return Err(unavailable(
            "no cuBLAS library (libcublas.so.13) on the library path; set LD_LIBRARY_PATH (on the GPU machine \
             /usr/local/cuda/targets/x86_64-linux/lib)"
                .into(),
        ));
    }
    Ok(())
}
