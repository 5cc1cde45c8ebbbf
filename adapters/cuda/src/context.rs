//! The device's primary context, made current on whichever thread calls into the driver.

use std::cell::Cell;
use std::sync::Arc;

use cudarc::driver::{result as dr, sys};
use tenor_ports::ComputeError;

use crate::error::{check, drv};
use crate::probe::probe;

thread_local! {
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

/// A retained primary context of one device (CUDA Driver API, "Primary Context Management").
/// The primary context is the one the runtime API, PyTorch and CuPy share, so Tenor's memory
/// and theirs live in one address space.
#[derive(Debug)]
pub struct Context {
    ordinal: i32,
    device: sys::CUdevice,
    ctx: sys::CUcontext,
}

// SAFETY: a CUcontext is a process-wide handle usable from any thread once made current there;
// `bind` makes it current before every driver call.
unsafe impl Send for Context {}
// SAFETY: as above; the handle itself is never mutated.
unsafe impl Sync for Context {}

impl Context {
    /// Retains the primary context of device `ordinal` after [`probe`] succeeded.
    ///
    /// # Errors
    /// [`ComputeError::Unavailable`] from the probe; [`ComputeError::InvalidArgument`] for an
    /// ordinal past the device count; driver errors.
    pub fn open(ordinal: i32) -> Result<Arc<Self>, ComputeError> {
        probe()?;
        let count = dr::device::get_count().map_err(|e| drv("cuDeviceGetCount", e))?;
        if ordinal < 0 || ordinal >= count {
            return Err(ComputeError::InvalidArgument(format!("CUDA device {ordinal} requested, {count} present")));
        }
        let device = dr::device::get(ordinal).map_err(|e| drv("cuDeviceGet", e))?;
        // SAFETY: `device` is a valid device handle from cuDeviceGet.
        let ctx = unsafe { dr::primary_ctx::retain(device) }.map_err(|e| drv("cuDevicePrimaryCtxRetain", e))?;
        let c = Arc::new(Self { ordinal, device, ctx });
        c.bind()?;
        Ok(c)
    }

    /// Makes the context current on this thread (cached per thread, so usually free).
    ///
    /// # Errors
    /// Driver errors of `cuCtxSetCurrent`.
    pub fn bind(&self) -> Result<(), ComputeError> {
        let me = self.ctx as usize;
        if CURRENT.with(Cell::get) == me {
            return Ok(());
        }
        // SAFETY: `ctx` is a retained primary context, valid until `self` drops.
        check("cuCtxSetCurrent", unsafe { sys::cuCtxSetCurrent(self.ctx) })?;
        CURRENT.with(|c| c.set(me));
        Ok(())
    }

    /// Device ordinal.
    pub fn ordinal(&self) -> i32 {
        self.ordinal
    }

    /// Driver device handle.
    pub fn device(&self) -> sys::CUdevice {
        self.device
    }

    /// An integer device attribute (`cuDeviceGetAttribute`).
    ///
    /// # Errors
    /// Driver errors.
    pub fn attribute(&self, attr: sys::CUdevice_attribute) -> Result<i32, ComputeError> {
        // SAFETY: valid device handle and attribute enum.
        unsafe { dr::device::get_attribute(self.device, attr) }.map_err(|e| drv("cuDeviceGetAttribute", e))
    }

    /// Compute capability (major, minor).
    ///
    /// # Errors
    /// Driver errors.
    pub fn compute_capability(&self) -> Result<(u32, u32), ComputeError> {
        use sys::CUdevice_attribute::*;
        let major = self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let minor = self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
        Ok((major.max(0) as u32, minor.max(0) as u32))
    }

    /// Blocks until all work of the context completed (`cuCtxSynchronize`).
    ///
    /// # Errors
    /// The sticky error of any earlier asynchronous failure.
    pub fn synchronize(&self) -> Result<(), ComputeError> {
        self.bind()?;
        dr::ctx::synchronize().map_err(|e| drv("cuCtxSynchronize", e))
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        CURRENT.with(|c| {
            if c.get() == self.ctx as usize {
                c.set(0);
            }
        });
        // SAFETY: balanced with the retain in `open`; errors at teardown are ignored on purpose
        // (nothing can act on them and Drop must not panic).
        let _ = unsafe { dr::primary_ctx::release(self.device) };
    }
}
