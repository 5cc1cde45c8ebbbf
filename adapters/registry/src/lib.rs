//! # tenor-registry: the one place that knows which backends exist
//!
//! Features add adapters (`cuda`, `sycl`, `opencl`); the CPU backend is always there. At run
//! time [`open`] selects one by name (`--backend`, or the `TENOR_BACKEND` environment variable
//! through the command line), and [`probe_all`] says for each compiled-in or known backend
//! whether it can run here and why not. An absent backend is a value
//! ([`ComputeError::Unavailable`] with the reason), never a panic.

use std::sync::Arc;

use tenor_ports::{Compute, ComputeError, Device, DeviceInfo, Driver};

pub mod select;
pub use select::{list_devices, open_devices, DeviceSet, Selector, SelectorError};

/// Backend names Tenor knows, in order of preference for `auto`.
pub const KNOWN: &[&str] = &["cuda", "sycl", "opencl", "cpu", "sim"];

/// Opens the backend called `name` (`cpu`, `sim`, `cuda`, `sycl`, `opencl`, or `auto` for the
/// first available in [`KNOWN`] order, skipping `sim`).
///
/// # Errors
/// [`ComputeError::Unavailable`] naming the backend and why it cannot run: not compiled in
/// (with the Cargo feature to enable), no driver, no device; [`ComputeError::InvalidArgument`]
/// for an unknown name.
///
/// A device selector (`cuda:1`, `sim:0`, [`select`]) opens that one device; a selector of
/// several devices (`cuda:*`) is refused here ([`open_devices`] opens those).
pub fn open(name: &str) -> Result<Arc<dyn Compute>, ComputeError> {
    if name.contains(':') {
        return select::open_one(name);
    }
    match name {
        "cpu" => Ok(Arc::new(tenor_cpu::cpu()?)),
        "sim" => Ok(Arc::new(tenor_sim::sim(tenor_sim::SimConfig::default())?)),
        "auto" => {
            let mut reasons = Vec::new();
            for n in KNOWN.iter().filter(|n| **n != "sim") {
                match open(n) {
                    Ok(c) => return Ok(c),
                    Err(e) => reasons.push(e.to_string()),
                }
            }
            Err(ComputeError::Unavailable { backend: "auto".into(), reason: reasons.join("; ") })
        }
        other => open_feature(other),
    }
}

fn not_built(name: &str) -> ComputeError {
    let reason = if name == "opencl" {
        "no OpenCL adapter exists yet (kernels carry OpenCL C sources for it)".to_owned()
    } else {
        format!("this build has no {name} adapter (rebuild with `--features {name}`)")
    };
    ComputeError::Unavailable { backend: name.into(), reason }
}

fn open_feature(name: &str) -> Result<Arc<dyn Compute>, ComputeError> {
    match name {
        #[cfg(feature = "cuda")]
        "cuda" => Ok(Arc::new(tenor_cuda::cuda()?)),
        #[cfg(not(feature = "cuda"))]
        "cuda" => Err(not_built(name)),
        // The device comes from TENOR_SYCL_DEVICE (cpu, gpu, default, index:N or part of a name).
        #[cfg(feature = "sycl")]
        "sycl" => Ok(Arc::new(tenor_sycl::sycl_from_env()?)),
        #[cfg(not(feature = "sycl"))]
        "sycl" => Err(not_built(name)),
        "opencl" => Err(not_built(name)),
        other => {
            Err(ComputeError::InvalidArgument(format!("unknown backend {other:?}; known: {}, auto", KNOWN.join(", "))))
        }
    }
}

/// For every known backend, its device description or why it is unavailable.
pub fn probe_all() -> Vec<(String, Result<DeviceInfo, ComputeError>)> {
    KNOWN.iter().map(|n| ((*n).to_owned(), open(n).map(|c| c.info().clone()))).collect()
}

/// Receives a backend's concrete device type, for work that needs static dispatch (the pilot
/// measures the port's overhead by calling the adapter's [`Driver`] directly beside the same
/// work through `dyn Compute`).
pub trait DeviceVisitor {
    /// What the visit returns.
    type Output;
    /// Called with the opened device.
    fn visit<D: Driver>(self, device: &Device<D>) -> Self::Output;
}

/// Opens backend `name` and hands its concrete device to `visitor`.
///
/// # Errors
/// As [`open`].
pub fn visit<V: DeviceVisitor>(name: &str, visitor: V) -> Result<V::Output, ComputeError> {
    if name.contains(':') {
        return select::visit_one(name, visitor);
    }
    match name {
        "cpu" => Ok(visitor.visit(&tenor_cpu::cpu()?)),
        "sim" => Ok(visitor.visit(&tenor_sim::sim(tenor_sim::SimConfig::default())?)),
        other => visit_feature(other, visitor),
    }
}

fn visit_feature<V: DeviceVisitor>(name: &str, visitor: V) -> Result<V::Output, ComputeError> {
    match name {
        #[cfg(feature = "cuda")]
        "cuda" => Ok(visitor.visit(&tenor_cuda::cuda()?)),
        #[cfg(not(feature = "cuda"))]
        "cuda" => Err(not_built(name)),
        #[cfg(feature = "sycl")]
        "sycl" => Ok(visitor.visit(&tenor_sycl::sycl_from_env()?)),
        #[cfg(not(feature = "sycl"))]
        "sycl" => Err(not_built(name)),
        "opencl" => {
            let _ = visitor;
            Err(not_built(name))
        }
        other => Err(ComputeError::InvalidArgument(format!("unknown backend {other:?}; known: {}", KNOWN.join(", ")))),
    }
}
