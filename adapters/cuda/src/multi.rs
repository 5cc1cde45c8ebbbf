//! Several CUDA devices: how many there are, opening one by ordinal, and whether two can access
//! each other's memory (`cuDeviceCanAccessPeer`), checked and never assumed (ADR 0020).

use cudarc::driver::{result as dr, sys};
use tenor_ports::{ComputeError, Device};

use crate::error::{check, drv};
use crate::probe::probe;
use crate::{CudaCompute, CudaDriver};

/// Number of CUDA devices the driver reports (`cuDeviceGetCount`).
///
/// # Errors
/// [`ComputeError::Unavailable`] from [`probe`] when CUDA cannot run here; driver errors.
pub fn device_count() -> Result<usize, ComputeError> {
    probe()?;
    let n = dr::device::get_count().map_err(|e| drv("cuDeviceGetCount", e))?;
    Ok(usize::try_from(n).unwrap_or(0))
}

/// Opens CUDA device `ordinal` with Tenor's own pool (as [`crate::cuda`] does for device 0):
/// each device gets its own context, pool and streams.
///
/// # Errors
/// As [`crate::cuda`]; [`ComputeError::InvalidArgument`] for an ordinal past the device count.
pub fn cuda_on(ordinal: usize) -> Result<CudaCompute, ComputeError> {
    let ordinal = i32::try_from(ordinal)
        .map_err(|_| ComputeError::InvalidArgument(format!("CUDA device ordinal {ordinal} is out of range")))?;
    Device::new(CudaDriver::new(ordinal)?)
}

/// Whether device `device` can access the memory of device `peer` directly
/// (`cuDeviceCanAccessPeer`; NVLink or PCIe peer-to-peer).
///
/// # Errors
/// [`ComputeError::Unavailable`] without CUDA; [`ComputeError::InvalidArgument`] for an ordinal
/// past the device count; driver errors.
pub fn can_access_peer(device: usize, peer: usize) -> Result<bool, ComputeError> {
    let n = device_count()?;
    if device >= n || peer >= n {
        return Err(ComputeError::InvalidArgument(format!(
            "peer access between CUDA devices {device} and {peer} asked, {n} present"
        )));
    }
    // Both ordinals are below the count, which is an i32.
    let (a, b) = (device as i32, peer as i32);
    let da = dr::device::get(a).map_err(|e| drv("cuDeviceGet", e))?;
    let db = dr::device::get(b).map_err(|e| drv("cuDeviceGet", e))?;
    let mut can: std::ffi::c_int = 0;
    // SAFETY: `da` and `db` are valid device handles from cuDeviceGet; `can` outlives the call.
    check("cuDeviceCanAccessPeer", unsafe { sys::cuDeviceCanAccessPeer(&mut can, da, db) })?;
    Ok(can != 0)
}
